import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemEvidence, UserLoginsView } from '../../shared/src/index.js';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildMmdb } from '../helpers/mmdb.js';
import { STORE_KINDS, tempDir } from '../helpers/stores.js';

const T0 = Date.parse('2026-05-01T08:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const BUILT = new Date('2026-04-01T00:00:00Z');

/** Documentation ranges mapped by the test databases: country and ASN per address. */
const ADDRESS = {
  DE: '198.51.100.10',
  US: '203.0.113.5',
  GB: '192.0.2.10',
  CA: '192.0.2.200',
  private: '10.1.2.3',
} as const;

/** A Windows-agent RDP logon (4624 / 4625) of `user` from `ip` on `hostname`. */
function rdpLogin(hostname: string, user: string, outcome: 'success' | 'failed', at: number, ip: string) {
  return {
    type: `rdp.login.${outcome}`,
    severity: outcome === 'failed' ? ('warning' as const) : ('info' as const),
    occurred_at: isoAt(at),
    source: { agent_instance_id: `agent-${hostname}` },
    host: { hostname, display_name: `${hostname} (10.0.0.9)` },
    details: { user, ip_address: ip, logon_type: 10, event_id_windows: outcome === 'failed' ? 4625 : 4624 },
  };
}

/** An SSH login as the Linux agent sends it. */
function sshLogin(hostname: string, user: string, at: number, ip: string) {
  return {
    type: 'ssh.login.success',
    severity: 'info' as const,
    occurred_at: isoAt(at),
    source: { agent_instance_id: `agent-${hostname}` },
    host: { hostname, os_family: 'linux' as const, display_name: hostname },
    title: 'SSH login',
    summary: `Accepted publickey for ${user} from ${ip} port 51822`,
    details: { user, ip_address: ip, port: 51822, method: 'publickey' },
  };
}

describe.each(STORE_KINDS)('per-user login baselines, new source and impossible travel on %s', (kind) => {
  let t: TestSac;
  let signedIn = { token: '', at: 0 };
  const clock = new ManualClock(T0);
  /** A session of the daemon's present (the tests move its clock on by days, past any session's life). */
  const auth = async () => {
    if (clock.now() - signedIn.at > HOUR) signedIn = { token: await adminToken(t, { fresh: true }), at: clock.now() };
    return signedIn.token;
  };
  const dir = tempDir('sac-baselines-');

  beforeAll(async () => {
    const countryDb = path.join(dir, 'country.mmdb');
    const asnDb = path.join(dir, 'asn.mmdb');
    writeFileSync(
      countryDb,
      buildMmdb(
        [
          { cidr: '198.51.100.0/24', record: { country_code: 'DE' } },
          { cidr: '203.0.113.0/24', record: { country_code: 'US' } },
          { cidr: '192.0.2.0/25', record: { country_code: 'GB' } },
          { cidr: '192.0.2.128/25', record: { country_code: 'CA' } },
        ],
        { databaseType: 'test-country', builtAt: BUILT },
      ),
    );
    writeFileSync(
      asnDb,
      buildMmdb(
        [
          { cidr: '198.51.100.0/24', record: { autonomous_system_number: 64500, autonomous_system_organization: 'Deutsche Doc' } },
          { cidr: '203.0.113.0/24', record: { autonomous_system_number: 64502, autonomous_system_organization: 'US Doc' } },
          { cidr: '192.0.2.0/24', record: { autonomous_system_number: 64501, autonomous_system_organization: 'Doc Net' } },
        ],
        { databaseType: 'test-asn', builtAt: BUILT },
      ),
    );
    t = await startTestSac(kind, {}, { clock });
    const token = await auth();
    expect((await api(t, 'PATCH', '/api/v1/settings/geoip', { token, body: { country_db_path: countryDb, asn_db_path: asnDb } })).status).toBe(200);
    await waitFor('the test databases in use', async () => {
      const h = (await api(t, 'GET', '/health')).body;
      return h.enrichment.country.source === 'file' && h.enrichment.asn.source === 'file' ? h : null;
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Ingests a login with the daemon's clock a minute after it occurred (as an agent sends it live). */
  const login = async (event: ReturnType<typeof rdpLogin> | ReturnType<typeof sshLogin>) => {
    clock.set(Date.parse(event.occurred_at) + MIN);
    return ingestEvent(t, event);
  };
  const problemsOf = async (rule: string) => (await api(t, 'GET', `/api/v1/problems?rule=${rule}`, { token: await auth() })).body.items as any[];
  const evidenceOf = async (id: string) => (await api(t, 'GET', `/api/v1/problems/${id}`, { token: await auth() })).body.evidence as ProblemEvidence | null;
  const userView = async (user: string) => {
    const res = await api(t, 'GET', `/api/v1/logins/user?user=${encodeURIComponent(user)}`, { token: await auth() });
    expect(res.status).toBe(200);
    return res.body as UserLoginsView;
  };

  it("a user's first login from a new country opens new_source after the learning period, not during it", async () => {
    await login(rdpLogin('WEB01', 'CORP\\Alice', 'success', T0, ADDRESS.DE));
    // Learning (30 days by default): a new country and ASN raise nothing.
    await login(rdpLogin('WEB02', 'alice@corp.example', 'success', T0 + 2 * DAY, ADDRESS.US));
    await login(sshLogin('db01', 'ALICE', T0 + 20 * DAY, ADDRESS.DE));
    // A private address has no country: nothing new, whenever.
    await login(rdpLogin('WEB01', 'alice', 'success', T0 + 30 * DAY + HOUR, ADDRESS.private));
    expect(await problemsOf('new_source')).toEqual([]);

    const gb = await login(rdpLogin('WEB03', 'corp\\alice', 'success', T0 + 31 * DAY, ADDRESS.GB));
    // A country of the baseline again, after the learning period (and slower than 900 km/h from GB): nothing.
    await login(rdpLogin('WEB01', 'alice', 'success', T0 + 31 * DAY + 2 * HOUR, ADDRESS.DE));

    const [problem, ...more] = await problemsOf('new_source');
    expect(more).toEqual([]);
    expect(problem).toMatchObject({ hostname: 'WEB03', severity: 'warning', title: 'Login of alice from a new source: GB, AS64501 Doc Net' });
    const evidence = await evidenceOf(problem.id);
    expect(evidence).toMatchObject({ kind: 'new_source', user: 'alice', new_country: 'GB', new_asn: 64501, login: { event_id: gb, country: 'GB', asn: 64501, hostname: 'WEB03' } });
    if (evidence?.kind !== 'new_source') throw new Error('not new_source evidence');
    expect(evidence.baseline.countries.map((c) => c.value).sort()).toEqual(['DE', 'US']);
    expect(evidence.baseline.learning_until).toBe(isoAt(T0 + 30 * DAY));

    const view = await userView('CORP\\ALICE');
    expect(view.user).toBe('alice');
    expect(view.logins.map((l) => [l.hostname, l.country, l.outcome])).toEqual([
      ['WEB01', 'DE', 'success'],
      ['WEB03', 'GB', 'success'],
      ['WEB01', null, 'success'],
      ['db01', 'DE', 'success'],
      ['WEB02', 'US', 'success'],
      // The first login (T0) is older than the learning period the user's logins are kept for.
    ]);
    expect(view.baseline).toMatchObject({ user: 'alice', first_seen: isoAt(T0), logins: 6 });
    expect(view.baseline!.countries).toEqual([
      { value: 'DE', count: 3, last_seen: isoAt(T0 + 31 * DAY + 2 * HOUR) },
      { value: 'GB', count: 1, last_seen: isoAt(T0 + 31 * DAY) },
      { value: 'US', count: 1, last_seen: isoAt(T0 + 2 * DAY) },
    ]);
    expect(view.baseline!.asns[0]).toEqual({ value: 64500, as_org: 'Deutsche Doc', count: 3, last_seen: isoAt(T0 + 31 * DAY + 2 * HOUR) });
    expect(view.baseline!.hours[8]).toBe(4);
    expect([view.baseline!.hours[9], view.baseline!.hours[10]]).toEqual([1, 1]);
    // WEB01 saw no login for more than the learning period after T0: it starts afresh.
    expect(view.baseline!.hosts.map((h) => [h.value, h.count])).toEqual([['WEB01', 2], ['WEB03', 1], ['db01', 1], ['WEB02', 1]]);
  });

  it('two logins 30 minutes apart from countries 5,000 km apart open impossible travel; far apart in time they do not', async () => {
    const t1 = T0 + 40 * DAY;
    // GB → CA (about 5,700 km between the centroids) in 30 minutes.
    const from = await login(rdpLogin('WEB01', 'bob', 'success', t1, ADDRESS.GB));
    const to = await login(rdpLogin('WEB02', 'CORP\\bob', 'success', t1 + 30 * MIN, ADDRESS.CA));
    // DE → US in ten hours: under 900 km/h.
    await login(rdpLogin('WEB01', 'carol', 'success', t1, ADDRESS.DE));
    await login(rdpLogin('WEB02', 'carol', 'success', t1 + 10 * HOUR, ADDRESS.US));

    const [problem, ...more] = await problemsOf('impossible_travel');
    expect(more).toEqual([]);
    expect(problem).toMatchObject({ hostname: 'WEB02', severity: 'high' });
    const evidence = await evidenceOf(problem.id);
    expect(evidence).toMatchObject({ kind: 'impossible_travel', user: 'bob', minutes: 30, limit_kmh: 900, from: { event_id: from, country: 'GB' }, to: { event_id: to, country: 'CA' } });
    if (evidence?.kind !== 'impossible_travel') throw new Error('not impossible_travel evidence');
    expect(evidence.distance_km).toBeGreaterThan(5000);
    expect(evidence.distance_km).toBeLessThan(6500);
    expect(evidence.speed_kmh).toBe(Math.round(evidence.distance_km * 2));
    // The problem's timeline holds both logins.
    const detail = (await api(t, 'GET', `/api/v1/problems/${problem.id}`, { token: await auth() })).body;
    expect(detail.timeline.map((e: { event_id: string }) => e.event_id).sort()).toEqual([from, to].sort());
  });

  it('login_after_failures and distributed_bruteforce store their evidence', async () => {
    const t2 = T0 + 50 * DAY;
    const ip = '198.51.100.77';
    for (const [i, host] of ['APP1', 'APP2', 'APP3', 'APP4'].entries()) await login(rdpLogin(host, 'root', 'failed', t2 + i * MIN, ip));
    const success = await login(rdpLogin('APP5', 'root', 'success', t2 + 5 * MIN, ip));
    const [distributed] = await problemsOf('distributed_bruteforce');
    expect(await evidenceOf(distributed.id)).toMatchObject({ kind: 'distributed_bruteforce', address: ip, window_minutes: 10 });
    const d = (await evidenceOf(distributed.id)) as Extract<ProblemEvidence, { kind: 'distributed_bruteforce' }>;
    expect(d.hosts.map((h) => [h.hostname, h.count]).sort()).toEqual([['APP1', 1], ['APP2', 1], ['APP3', 1], ['APP4', 1]]);
    const [after] = await problemsOf('login_after_failures');
    expect(await evidenceOf(after.id)).toMatchObject({ kind: 'login_after_failures', address: ip, user: 'root', login: { event_id: success, country: 'DE', hostname: 'APP5' } });
    // The failures are on the user's page too.
    expect((await userView('root')).logins.map((l) => l.outcome)).toEqual(['success', 'failure', 'failure', 'failure', 'failure']);
  });

  it('the rebuild from stored events equals the baselines ingest kept, and is audited', async () => {
    const users = ['alice', 'bob', 'carol', 'root'];
    const before = await Promise.all(users.map(userView));
    const rebuilt = await api(t, 'POST', '/api/v1/logins/rebuild-baselines', { token: await auth() });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body).toMatchObject({ users: 4 });
    const after = await Promise.all(users.map(userView));
    expect(after.map((v) => v.baseline)).toEqual(before.map((v) => v.baseline));
    const audit = (await api(t, 'GET', '/api/v1/audit', { token: await auth() })).body.entries as { action: string; details: Record<string, unknown> }[];
    expect(audit.find((e) => e.action === 'logins.baselines_rebuilt')?.details).toMatchObject({ users: 4 });
  });
});
