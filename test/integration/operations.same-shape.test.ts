import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../daemon/src/http/index.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

type Transport = 'rest' | 'trpc';
/** One call of an operation: its input and the caller's token. */
interface Call {
  input?: Record<string, unknown>;
  token: string | null;
}
/** How to call an operation; asked once per transport, so a mutation acts on its own target each time. */
type Case = (via: Transport) => Promise<Call> | Call;

/** The REST request for an input, built from the declaration as a client reads the document. */
function restRequest(op: AnyOperation & { path: string }, input: Record<string, unknown> = {}): { path: string; body?: unknown } {
  const rest = { ...input };
  const path = op.path.replace(/\{([A-Za-z_]+)\}/g, (_m, name: string) => {
    const value = String(rest[name]);
    delete rest[name];
    return encodeURIComponent(value);
  });
  if (op.method === 'GET' || op.method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString();
    return { path: query ? `${path}?${query}` : path };
  }
  return { path, body: op.restBody === undefined ? rest : rest[op.restBody] };
}

/** The structure of a value: object keys and element shapes kept, every leaf reduced to its type. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return value === null ? 'null' : typeof value;
}

describe.each(STORE_KINDS)('every operation answers the same over REST and tRPC on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  const clock = new ManualClock(NOW);
  const problems: string[] = [];
  const hosts: Record<string, string> = {};
  const eventIds: string[] = [];
  let reportId = '';

  /** A fresh monitor signed in: for operations that change or end their caller's session or password. */
  async function freshMonitor() {
    const u = await createUser(t, 'monitor');
    return { password: u.password, token: (await login(t, u.user.username, u.password)).body.token as string };
  }
  /** A fresh monitor's id: for operations on a user account. */
  const freshUserId = async () => (await createUser(t, 'monitor')).user.id;
  /** The same target picked by transport: the first for REST, the second for tRPC. */
  const pick = <T,>(via: Transport, pair: readonly T[]) => pair[via === 'rest' ? 0 : 1];

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    admin = await adminToken(t);
    monitor = (await freshMonitor()).token;
    for (const [i, hostname] of ['ALPHA', 'BRAVO', 'CHARLIE', 'DOOMED-1', 'DOOMED-2'].entries()) {
      eventIds.push(await ingestEvent(t, { host: { hostname }, type: 'rdp.login.failed', severity: 'high', title: 'failed', occurred_at: isoAt(NOW - (10 - i) * MIN) }));
    }
    for (const hostname of ['ALPHA', 'BRAVO']) {
      problems.push(((await api(t, 'GET', `/api/v1/problems?host=${hostname}`, { token: admin })).body.items as { id: string }[])[0].id);
    }
    for (const h of (await api(t, 'GET', '/api/v1/hosts', { token: admin })).body.items as { id: string; hostname: string }[]) hosts[h.hostname] = h.id;
    reportId = (await api(t, 'POST', '/api/v1/reports', { token: admin })).body.report.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const CASES: Record<string, Case> = {
    'auth.login': () => ({ input: { username: t.adminUsername, password: t.adminPassword }, token: null }),
    'auth.me': () => ({ token: monitor }),
    'auth.renew': () => ({ token: monitor }),
    'auth.logout': async () => ({ token: (await freshMonitor()).token }),
    'auth.changePassword': async () => {
      const u = await freshMonitor();
      return { input: { current_password: u.password, new_password: `${u.password}-Next-9` }, token: u.token };
    },
    'users.list': () => ({ token: admin }),
    'users.create': (via) => ({ input: { username: `same-shape-${via}`, password: 'Same-shape-pass-1', role: 'monitor' }, token: admin }),
    'users.update': async () => ({ input: { id: await freshUserId(), patch: { display_name: 'Renamed' } }, token: admin }),
    'users.delete': async () => ({ input: { id: await freshUserId() }, token: admin }),
    'apiKeys.list': () => ({ token: admin }),
    'apiKeys.create': (via) => ({ input: { label: `same-shape ${via}` }, token: admin }),
    'apiKeys.revoke': async () => ({ input: { id: (await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label: 'to revoke' } })).body.api_key.id }, token: admin }),
    'settings.list': () => ({ token: admin }),
    'settings.get': () => ({ input: { category: 'telegram' }, token: admin }),
    'settings.update': (via) => ({ input: { category: 'telegram', values: { chat_ids: [pick(via, ['-100111', '-100222'])] } }, token: admin }),
    'audit.list': () => ({ input: { limit: 20 }, token: admin }),
    'events.list': () => ({ input: { limit: 10 }, token: monitor }),
    'events.byId': () => ({ input: { id: eventIds[0] }, token: monitor }),
    'hosts.list': () => ({ input: { sort: 'hostname', outdated: 'false' }, token: monitor }),
    'hosts.byId': () => ({ input: { id: hosts.ALPHA }, token: monitor }),
    'hosts.pinAddress': (via) => ({ input: { id: hosts[pick(via, ['ALPHA', 'BRAVO'])], pin: { address: pick(via, ['192.0.2.10', '192.0.2.11']) } }, token: admin }),
    'hosts.unpinAddress': (via) => ({ input: { id: hosts[pick(via, ['ALPHA', 'BRAVO'])] }, token: admin }),
    'hosts.delete': (via) => ({ input: { id: hosts[pick(via, ['DOOMED-1', 'DOOMED-2'])] }, token: admin }),
    'problems.list': () => ({ input: { status: 'open,acknowledged,resolved' }, token: monitor }),
    'problems.byId': () => ({ input: { id: problems[0] }, token: monitor }),
    'problems.acknowledge': (via) => ({ input: { id: pick(via, problems), comment: 'seen' }, token: monitor }),
    'problems.resolve': (via) => ({ input: { id: pick(via, problems) }, token: monitor }),
    'problems.reopen': (via) => ({ input: { id: pick(via, problems) }, token: monitor }),
    'problems.assign': (via) => ({ input: { id: pick(via, problems), assignee_id: null }, token: monitor }),
    'problems.assignees': () => ({ token: monitor }),
    'dashboards.summary': () => ({ input: { from: isoAt(NOW - 24 * 60 * MIN), to: isoAt(NOW) }, token: monitor }),
    'reports.list': () => ({ input: { limit: 5 }, token: monitor }),
    'reports.byId': () => ({ input: { id: reportId }, token: monitor }),
    'reports.generate': () => ({ token: admin }),
  };

  const bothTransports = () => (t.sac.operations as readonly AnyOperation[]).filter((op): op is AnyOperation & { path: string } => op.path !== undefined && op.trpc !== false);

  it('has a case for every operation with both transports, and none for one that is gone', () => {
    const ids = bothTransports().map((op) => op.id);
    expect(ids.filter((id) => !(id in CASES)), 'operations without a case here').toEqual([]);
    expect(Object.keys(CASES).filter((id) => !ids.includes(id)), 'cases of operations that do not exist').toEqual([]);
  });

  it('answers equal queries and same-shaped mutations, each parsing under the declared output schema', async () => {
    const differences: string[] = [];
    for (const op of bothTransports()) {
      const viaRest = await CASES[op.id]('rest');
      const req = restRequest(op, viaRest.input);
      const rest = await api(t, op.method, req.path, { token: viaRest.token, body: req.body });
      const viaTrpc = await CASES[op.id]('trpc');
      const called = await trpc(t, viaTrpc.token, op.kind, op.id, viaTrpc.input);

      const status = op.status ?? 200;
      if (rest.status !== status) differences.push(`${op.id}: REST ${rest.status} ${JSON.stringify(rest.body)}, expected ${status}`);
      if (called.status !== 200) differences.push(`${op.id}: tRPC ${called.status} ${JSON.stringify(called.error)}`);
      if (rest.status !== status || called.status !== 200) continue;
      if (!op.output.safeParse(called.data).success) differences.push(`${op.id}: the tRPC answer does not parse under the output schema`);
      // A 204 has no body to compare: the tRPC answer alone is checked above.
      if (status === 204) continue;
      const restData: unknown = op.envelope === undefined ? rest.body : (rest.body as Record<string, unknown>)[op.envelope];
      if (!op.output.safeParse(restData).success) differences.push(`${op.id}: the REST answer does not parse under the output schema`);
      // A query reads the same state twice: equal. A mutation acted on its own target each time: the same shape.
      const [a, b] = op.kind === 'query' ? [restData, called.data] : [shapeOf(restData), shapeOf(called.data)];
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${op.id}: REST ${JSON.stringify(a).slice(0, 300)} ≠ tRPC ${JSON.stringify(b).slice(0, 300)}`);
    }
    expect(differences).toEqual([]);
    // Signing in, creating users and changing passwords hash with scrypt: many of them, one after another.
  }, 240_000);
});
