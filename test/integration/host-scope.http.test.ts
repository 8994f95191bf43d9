import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../daemon/src/http/index.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';
import { restRequest } from '../helpers/rest-request.js';

type Transport = 'rest' | 'trpc';
/** What the limited monitor's call names: records of the host outside their groups. */
interface OutOfScope {
  host: string;
  event: string;
  problem: string;
  command: string;
  report: string;
  window: string;
  job: string;
  approval: string;
}
/**
 * How a limited monitor calls an operation against the other host's records, or `own`: the
 * operation answers about the caller's own account only (it must be declared `none`; it is not
 * called, as signing out or changing a password would end the test's session).
 */
type Case = ((o: OutOfScope) => Record<string, unknown> | undefined) | 'own';

const none = () => undefined;
const CASES: Record<string, Case> = {
  'auth.me': none,
  'auth.session': none,
  'auth.renew': 'own',
  'auth.logout': 'own',
  'auth.changePassword': 'own',
  'totp.status': none,
  'totp.enroll': 'own',
  'totp.confirm': 'own',
  'totp.disable': 'own',
  'telegram.status': none,
  'telegram.createLinkCode': 'own',
  'telegram.unlink': 'own',
  'notifications.vapidPublicKey': none,
  'notifications.subscribePush': 'own',
  'notifications.unsubscribePush': 'own',
  'mobile.setPush': 'own',
  'mobile.devices': none,
  'stream.ticket': none,
  'maintenance.list': none,
  'maintenance.canManage': none,
  'maintenance.active': (o) => ({ host: o.host }),
  'maintenance.byId': (o) => ({ id: o.window }),
  'maintenance.create': () => ({ hosts: ['OUT-01'], starts_at: new Date().toISOString(), duration_minutes: 5, reason: 'scope' }),
  'maintenance.update': (o) => ({ id: o.window, hosts: ['OUT-01'], starts_at: new Date().toISOString(), duration_minutes: 5, reason: 'scope' }),
  'maintenance.end': (o) => ({ id: o.window }),
  'events.list': none,
  'events.byId': (o) => ({ id: o.event }),
  'hosts.list': none,
  'hosts.byId': (o) => ({ id: o.host }),
  'groups.list': none,
  'groups.ofHost': (o) => ({ id: o.host }),
  'groups.byId': () => ({ id: 'all-hosts' }),
  'problems.list': none,
  'problems.openedByType': none,
  // Not scoped: users, addresses and types come from a fleet-wide catalogue (a limited monitor gets 403).
  'suggest.values': () => ({ field: 'host', prefix: 'out' }),
  // Not scoped: a user's logins and baseline span the fleet (a limited monitor gets 403).
  'logins.user': () => ({ user: 'alice' }),
  // Not scoped: a ban is fleet-wide (a limited monitor gets 403).
  'bans.list': none,
  'bans.byId': () => ({ id: 'no-such-ban' }),
  'approvals.list': none,
  'approvals.byId': (o) => ({ id: o.approval }),
  'approvals.request': (o) => ({ request: { kind: 'host_logoff', host_id: o.host, session_id: 3 }, reason: 'scope' }),
  'approvals.approve': (o) => ({ id: o.approval }),
  'approvals.deny': (o) => ({ id: o.approval }),
  'approvals.cancel': (o) => ({ id: o.approval }),
  'problems.byId': (o) => ({ id: o.problem }),
  'problems.acknowledge': (o) => ({ id: o.problem }),
  'problems.resolve': (o) => ({ id: o.problem }),
  'problems.reopen': (o) => ({ id: o.problem }),
  'problems.assign': (o) => ({ id: o.problem, assignee_id: null }),
  'problems.assignees': none,
  'dashboards.summary': none,
  'dashboards.eventsPerHour': none,
  'reports.list': none,
  'reports.byId': (o) => ({ id: o.report }),
  'reports.html': (o) => ({ id: o.report }),
  'actions.hostSessions': (o) => ({ host_id: o.host }),
  'actions.sessions': (o) => ({ host_id: o.host }),
  'actions.logoff': (o) => ({ host_id: o.host, session_id: 2 }),
  'actions.eventSessions': (o) => ({ event_id: o.event }),
  'actions.eventLogoff': (o) => ({ event_id: o.event, session_id: 2 }),
  'actions.winrmTest': (o) => ({ host_id: o.host }),
  'actions.sshTest': (o) => ({ host_id: o.host }),
  'actions.commands': (o) => ({ host_id: o.host, limit: 10 }),
  'actions.command': (o) => ({ id: o.command }),
  'agents.versions': none,
  'agents.updates': none,
  'agents.update': (o) => ({ id: o.job }),
  'agents.hostConfig': (o) => ({ host_id: o.host }),
  'rollouts.list': none,
  'rollouts.byId': () => ({ id: 'no-such-rollout' }),
  'agents.pins': none,
};

describe.each(STORE_KINDS)('a monitor limited to host groups on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let limited: string;
  let out: OutOfScope;
  let inEvent = '';
  let inHost = '';
  /** Everything that names the other host: none of it may reach the limited monitor. */
  let secrets: string[] = [];

  const hostEvent = (hostname: string, ip: string) => ({
    host: { hostname, os_family: 'windows' as const, ipv4: ip, display_name: hostname },
    source: { product: 'rdp-login-monitor' as const, product_version: '2.1.7-SAC', agent_instance_id: `agent-${hostname}` },
    type: 'rdp.login.success',
    severity: 'high' as const,
    title: `sign-in on ${hostname}`,
    details: { user: 'alice', ip_address: '203.0.113.9', logon_type: 10, session_id: 2, event_id_windows: 4624 },
  });

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' });
    admin = await adminToken(t);
    inEvent = await ingestEvent(t, hostEvent('IN-01', '10.9.0.1'));
    const outEvent = await ingestEvent(t, hostEvent('OUT-01', '10.9.0.2'));
    const hosts = (await api(t, 'GET', '/api/v1/hosts', { token: admin })).body.items as { id: string; hostname: string }[];
    inHost = hosts.find((h) => h.hostname === 'IN-01')!.id;
    const outHost = hosts.find((h) => h.hostname === 'OUT-01')!.id;
    const problem = ((await api(t, 'GET', `/api/v1/problems?host=${outHost}`, { token: admin })).body.items as { id: string }[])[0].id;
    const queued = await api(t, 'POST', `/api/v1/hosts/${outHost}/sessions/2/logoff`, { token: admin });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const report = (await api(t, 'POST', '/api/v1/reports', { token: admin })).body.report.id as string;
    const window = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token: admin,
      body: { hosts: ['OUT-01'], starts_at: new Date().toISOString(), duration_minutes: 60, reason: 'out' },
    });
    // A pending approval request for a logoff on the other host (the policy is off again after filing it).
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff'] } });
    const filed = await api(t, 'POST', '/api/v1/approvals', { token: admin, body: { request: { kind: 'host_logoff', host_id: outHost, session_id: 2 }, reason: 'out' } });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: [] } });
    out = { host: outHost, event: outEvent, problem, command: queued.body.command.id, report, window: window.body.id, job: 'no-such-job', approval: filed.body.id };
    secrets = [outHost, outEvent, problem, queued.body.command.id, filed.body.id, 'OUT-01', 'out-01'];

    const mine = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Mine', rules: { host_patterns: ['in-*'] } } });
    // A group holding every host: its detail must still list only the monitor's hosts.
    await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'All hosts', rules: { cidrs: ['0.0.0.0/0', '::/0'] } } });
    const monitor = await createUser(t, 'monitor');
    const set = await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin, body: { group_ids: [mine.body.id] } });
    expect(set.body).toEqual({ group_ids: [mine.body.id] });
    limited = (await login(t, monitor.user.username, monitor.password)).body.token as string;
  });
  afterAll(async () => {
    await t?.close();
  });

  const operatorOps = () => (t.sac.operations as readonly AnyOperation[]).filter((op) => op.role === 'operator');
  const groupId = async (name: string) => ((await api(t, 'GET', '/api/v1/groups', { token: admin })).body.groups as { id: string; name: string }[]).find((g) => g.name === name)!.id;

  it('has a case for every operator operation, and none for one that is gone', () => {
    const ids = operatorOps().map((op) => op.id);
    expect(ids.filter((id) => !(id in CASES)), 'operations without a case here').toEqual([]);
    expect(Object.keys(CASES).filter((id) => !ids.includes(id)), 'cases of operations that do not exist').toEqual([]);
    expect(operatorOps().filter((op) => CASES[op.id] === 'own' && op.scope !== 'none').map((op) => op.id), 'own-account operations not declared none').toEqual([]);
  });

  it('cannot read or act on the other host through any operation, over REST or tRPC', async () => {
    const leaks: string[] = [];
    for (const op of operatorOps()) {
      const c = CASES[op.id];
      if (c === 'own') continue;
      if (op.id === 'groups.byId') continue; // checked below with the group's real id
      const input = c(out);
      const transports: Transport[] = [...(op.path !== undefined ? (['rest'] as const) : []), ...(op.trpc !== false ? (['trpc'] as const) : [])];
      for (const via of transports) {
        let status: number;
        let text: string;
        if (via === 'rest') {
          const req = restRequest(op as AnyOperation & { path: string }, input);
          const res = await api(t, op.method, req.path, { token: limited, body: req.body });
          [status, text] = [res.status, typeof res.body === 'string' ? res.body : JSON.stringify(res.body)];
        } else {
          const res = await trpc(t, limited, op.kind, op.id, input);
          [status, text] = [res.status, JSON.stringify(res.data ?? res.error)];
        }
        // An error may echo what the caller sent (the id it asked for), nothing more.
        const sent = JSON.stringify(input ?? {});
        const named = secrets.filter((s) => text.includes(s) && !sent.includes(s));
        if (named.length > 0) leaks.push(`${op.id} over ${via}: ${status} names ${named.join(', ')}`);
        // A read or an action on the other host's record is refused: 404 as if it did not exist, or 403 for what is not scoped at all.
        if (typeof op.scope === 'object' && status !== 404) leaks.push(`${op.id} over ${via}: ${status}, expected 404`);
        if (op.scope === undefined && status !== 403) leaks.push(`${op.id} over ${via}: ${status}, expected 403`);
      }
    }
    expect(leaks.join('\n')).toBe('');
    // Nothing was done to the other host's problem.
    expect((await api(t, 'GET', `/api/v1/problems/${out.problem}`, { token: admin })).body.status).toBe('open');
  });

  it('still sees and acts on its own hosts, and its groups list only them', async () => {
    const events = await api(t, 'GET', '/api/v1/events', { token: limited });
    expect(events.body.items.map((e: { event_id: string }) => e.event_id)).toEqual([inEvent]);
    expect((await api(t, 'GET', `/api/v1/events/${inEvent}`, { token: limited })).status).toBe(200);
    expect((await api(t, 'GET', `/api/v1/hosts/${inHost}`, { token: limited })).status).toBe(200);
    const problems = (await api(t, 'GET', '/api/v1/problems', { token: limited })).body.items as { id: string; host_id: string }[];
    expect(problems.map((p) => p.host_id)).toEqual([inHost]);
    expect((await api(t, 'POST', `/api/v1/problems/${problems[0].id}/acknowledge`, { token: limited, body: {} })).status).toBe(200);
    const all = await api(t, 'GET', `/api/v1/groups/${await groupId('All hosts')}`, { token: limited });
    expect([all.status, all.body.members.map((m: { hostname: string }) => m.hostname)]).toEqual([200, ['IN-01']]);
    const listed = (await trpc(t, limited, 'query', 'groups.list')).data as { name: string; member_count: number }[];
    expect(listed.map((g) => [g.name, g.member_count])).toEqual([['All hosts', 1], ['Mine', 1]]);
    // The admin still sees both.
    expect((await api(t, 'GET', '/api/v1/events', { token: admin })).body.items).toHaveLength(2);
  });

  it('gets only its hosts’ events on the live stream, and no fleet counters', async () => {
    const limitedStream = await openStream(t, { token: limited });
    const adminStream = await openStream(t, { token: admin });
    try {
      const outNow = await ingestEvent(t, hostEvent('OUT-01', '10.9.0.2'));
      const inNow = await ingestEvent(t, hostEvent('IN-01', '10.9.0.1'));
      // The admin's stream has both; the limited one has the later event of its host, so the earlier one of the other host was passed by.
      await adminStream.next((f) => f.data?.event_id === inNow);
      await adminStream.next((f) => f.data?.event_id === outNow);
      await limitedStream.next((f) => f.data?.event_id === inNow);
      const seen = JSON.stringify(limitedStream.frames);
      expect(secrets.concat(outNow).filter((s) => seen.includes(s))).toEqual([]);
      expect(limitedStream.frames.filter((f) => f.event === 'counters')).toEqual([]);
      expect(adminStream.frames.some((f) => f.event === 'counters')).toBe(true);
    } finally {
      limitedStream.close();
      adminStream.close();
    }
  });

  it('lets only admins set a limit, never on an admin, and only to groups that exist', async () => {
    const monitor = await createUser(t, 'monitor');
    const mtoken = (await login(t, monitor.user.username, monitor.password)).body.token as string;
    expect((await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: mtoken, body: { group_ids: [] } })).status).toBe(403);
    const me = (await api(t, 'GET', '/api/v1/auth/me', { token: admin })).body.user.id as string;
    const onAdmin = await api(t, 'PUT', `/api/v1/users/${me}/host-groups`, { token: admin, body: { group_ids: [] } });
    expect([onAdmin.status, onAdmin.body.error.code]).toEqual([409, 'group/admin_unlimited']);
    const unknown = await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin, body: { group_ids: ['nope'] } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'group/not_found']);
    // An empty limit: no host at all; lifting it: every host again.
    await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin, body: { group_ids: [] } });
    expect((await api(t, 'GET', '/api/v1/events', { token: mtoken })).body.items).toEqual([]);
    expect((await api(t, 'GET', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin })).body).toEqual({ group_ids: [] });
    await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin, body: { group_ids: null } });
    expect((await api(t, 'GET', '/api/v1/events', { token: mtoken })).body.items.length).toBeGreaterThanOrEqual(2);
    const audit = await api(t, 'GET', `/api/v1/audit?action=user.host_groups_set&target=user:${monitor.user.id}`, { token: admin });
    expect(audit.body.entries).toHaveLength(2);
  });
});
