import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdpUpdates } from '../helpers/agent-updates.js';
import type { AnyOperation } from '../../daemon/src/http/index.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { GitReposPeer } from '../peers/git-repos.peer.js';
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
  // Host names of the caller's hosts; no users or addresses (the catalogue does not say on which host).
  'suggest.values': () => ({ field: 'host', prefix: 'out' }),
  // Logins on the caller's hosts, no baseline (it counts the whole fleet).
  'logins.user': () => ({ user: 'alice' }),
  // Bans applied on the caller's hosts, with those hosts' results only.
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

describe.each(STORE_KINDS)('a monitor limited to a host group, on the fleet-wide pages, on %s', (kind) => {
  let t: TestSac;
  let repos: GitReposPeer;
  let admin: string;
  let limited: string;
  let mine = '';
  const ids: Record<string, string> = {};
  const attacker = '198.51.100.7';

  const windowsLogin = (hostname: string, ip: string, severity: 'high' | 'warning') =>
    ingestEvent(t, {
      host: { hostname, os_family: 'windows', ipv4: ip },
      source: { product: 'rdp-login-monitor', product_version: '2.1.7-SAC', agent_instance_id: `agent-${hostname}` },
      type: 'rdp.login.success',
      severity,
      occurred_at: new Date().toISOString(),
      details: { user: 'alice', ip_address: '203.0.113.9', logon_type: 10, session_id: 2, event_id_windows: 4624 },
    });
  const linuxEvent = (hostname: string, ip: string) =>
    ingestEvent(t, {
      type: 'ssh.login.failed',
      occurred_at: new Date().toISOString(),
      source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
      host: { hostname, os_family: 'linux', ipv4: ip },
    });
  const get = (token: string, path: string) => api(t, 'GET', path, { token });

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' });
    admin = await adminToken(t);
    repos = await startRdpUpdates(t, admin);
    await windowsLogin('IN-01', '10.9.0.1', 'high');
    await windowsLogin('OUT-01', '10.9.0.2', 'high');
    await windowsLogin('OUT-01', '10.9.0.2', 'warning');
    await linuxEvent('in-lx', '10.9.1.1');
    await linuxEvent('out-lx', '10.9.1.2');
    for (const h of (await get(admin, '/api/v1/hosts')).body.items as { id: string; hostname: string }[]) ids[h.hostname] = h.id;
    mine = (await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Mine', rules: { host_patterns: ['in-*'] } } })).body.id;
    const monitor = await createUser(t, 'monitor');
    await api(t, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token: admin, body: { group_ids: [mine] } });
    limited = (await login(t, monitor.user.username, monitor.password)).body.token as string;
  });
  afterAll(async () => {
    await t?.close();
    await repos?.close();
  });

  it('gets the dashboard of its hosts: the same figures an admin gets for its group, not the fleet’s', async () => {
    const answer = await get(limited, '/api/v1/dashboards/summary');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const own = answer.body;
    const group = (await get(admin, `/api/v1/dashboards/summary?group=${mine}`)).body;
    const fleet = (await get(admin, '/api/v1/dashboards/summary')).body;
    const figures = (s: any) => ({
      events: s.events_24h,
      by_severity: s.by_severity,
      hosts: s.hosts.total,
      top_hosts: s.top_hosts.map((h: { hostname: string; count: number }) => [h.hostname, h.count]).sort(),
      top_types: s.top_types,
      open_problems: s.open_problems,
      recent: s.recent_events.map((e: { host_id: string }) => e.host_id).sort(),
    });
    expect(figures(own)).toEqual(figures(group));
    expect(figures(own)).toMatchObject({ events: 2, hosts: 2, top_hosts: [['IN-01', 1], ['in-lx', 1]] });
    expect(own.by_severity).toMatchObject({ high: 1 });
    expect(new Set(figures(own).recent)).toEqual(new Set([ids['IN-01'], ids['in-lx']]));
    expect(figures(fleet)).toMatchObject({ events: 5, hosts: 4 });
    // The chart counts the same events, hour by hour.
    const hours = (await trpc(t, limited, 'query', 'dashboards.eventsPerHour', {})).data as { by_severity: Record<string, number> }[];
    const charted = hours.reduce((n, h) => n + Object.values(h.by_severity).reduce((a, b) => a + b, 0), 0);
    expect(charted).toBe(2);
    const unknown = await get(admin, '/api/v1/dashboards/summary?group=no-such-group');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'group/not_found']);
  });

  it('gets the reports of its group, never a fleet report or one of a wider group', async () => {
    const forGroup = await api(t, 'POST', '/api/v1/reports', { token: admin, body: { group_id: mine } });
    expect(forGroup.status, JSON.stringify(forGroup.body)).toBe(201);
    expect(forGroup.body).toMatchObject({ report: { group_id: mine, group_name: 'Mine' }, channels: [] });
    const all = (await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Everything', rules: { cidrs: ['0.0.0.0/0'] } } })).body.id as string;
    const wider = (await api(t, 'POST', '/api/v1/reports', { token: admin, body: { group_id: all } })).body.report.id as string;
    const fleet = (await api(t, 'POST', '/api/v1/reports', { token: admin })).body.report.id as string;
    const listed = (token: string, query = '') => get(token, `/api/v1/reports${query}`).then((r) => r.body.reports.map((x: { id: string }) => x.id));
    expect(await listed(limited)).toEqual([forGroup.body.report.id]);
    expect(await listed(admin, `?group=${mine}`)).toEqual([forGroup.body.report.id]);
    expect(await listed(admin)).toEqual([fleet, wider, forGroup.body.report.id]);
    const html = await get(limited, `/api/v1/reports/${forGroup.body.report.id}/html`);
    expect([html.status, html.body]).toEqual([200, expect.stringContaining('· Mine')]);
    for (const id of [wider, fleet]) expect((await get(limited, `/api/v1/reports/${id}`)).status).toBe(404);
  });

  it('gets suggestions, a user’s logins, bans and agent jobs of its hosts only', async () => {
    const suggested = (await get(limited, '/api/v1/suggestions?field=host')).body.values as string[];
    expect(suggested.sort()).toEqual(['IN-01', 'in-lx']);
    expect((await get(admin, '/api/v1/suggestions?field=host')).body.values).toHaveLength(4);
    expect((await get(limited, '/api/v1/suggestions?field=ip&prefix=203')).body.values).toEqual([]);
    expect((await get(limited, '/api/v1/suggestions?field=type&prefix=rdp.login')).body.values).toEqual(['rdp.login.success']);

    const logins = (await get(limited, '/api/v1/logins/user?user=alice')).body;
    expect([logins.baseline, logins.logins.map((l: { hostname: string }) => l.hostname)]).toEqual([null, ['IN-01']]);
    expect((await get(admin, '/api/v1/logins/user?user=alice')).body.logins).toHaveLength(3);

    // A ban on every Linux host reaches both (unverified addresses: nothing is run); one on the other host only.
    const everywhere = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: attacker, reason: 'scope' } });
    expect(everywhere.status, JSON.stringify(everywhere.body)).toBe(201);
    expect(everywhere.body.hosts.map((h: { hostname: string }) => h.hostname).sort()).toEqual(['in-lx', 'out-lx']);
    const elsewhere = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: '198.51.100.8', target: { kind: 'hosts', host_ids: [ids['out-lx']] } } });
    expect(elsewhere.status).toBe(201);
    const bans = (await get(limited, '/api/v1/bans')).body.bans as { id: string; hosts: { hostname: string }[] }[];
    expect(bans.map((b) => [b.id, b.hosts.map((h) => h.hostname)])).toEqual([[everywhere.body.id, ['in-lx']]]);
    expect((await get(limited, `/api/v1/bans/${everywhere.body.id}`)).body.hosts.map((h: { hostname: string }) => h.hostname)).toEqual(['in-lx']);
    expect((await get(limited, `/api/v1/bans/${elsewhere.body.id}`)).status).toBe(404);

    const started = [];
    for (const host of ['IN-01', 'OUT-01']) started.push(await api(t, 'POST', `/api/v1/hosts/${ids[host]}/agent-update`, { token: admin }));
    expect(started.map((s) => s.status)).toEqual([201, 201]);
    const [inJob, outJob] = started.map((s) => s.body.job.id as string);
    expect((await get(limited, '/api/v1/agent-updates')).body.jobs.map((j: { id: string }) => j.id)).toEqual([inJob]);
    expect((await get(limited, `/api/v1/agent-updates?host_id=${ids['OUT-01']}`)).body.jobs).toEqual([]);
    expect((await get(limited, `/api/v1/agent-updates/${inJob}`)).status).toBe(200);
    expect((await get(limited, `/api/v1/agent-updates/${outJob}`)).status).toBe(404);
    expect((await get(limited, '/api/v1/agents/versions')).status).toBe(200);
  });

  it('cannot request or decide a logoff through an RD Gateway outside its groups', async () => {
    // The gateway is another group's host; the workstation it names is the monitor's.
    const gateway = await ingestEvent(t, {
      type: 'rdg.connection.success',
      category: 'network',
      severity: 'info',
      host: { hostname: 'OUT-GW', os_family: 'windows', ipv4: '10.9.2.1' },
      source: { agent_instance_id: 'agent-out-gw' },
      details: { user: 'CORP\\alice', external_ip: '203.0.113.9', internal_ip: 'in-01', protocol: 'HTTP', event_id_windows: 302, generated_by: 'agent' },
    });
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff'] } });
    const request = { request: { kind: 'event_logoff', event_id: gateway, session_id: 2 }, reason: 'scope' };
    const asked = await api(t, 'POST', '/api/v1/approvals', { token: limited, body: request });
    expect(asked.status, JSON.stringify(asked.body)).toBe(404);
    const filed = await api(t, 'POST', '/api/v1/approvals', { token: admin, body: request });
    expect(filed.status, JSON.stringify(filed.body)).toBe(201);
    expect(filed.body.hostnames).toEqual(['IN-01', 'OUT-GW']);
    expect((await get(limited, `/api/v1/approvals/${filed.body.id}`)).status).toBe(404);
    expect((await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: limited })).status).toBe(404);
    expect((await get(limited, '/api/v1/approvals')).body.items).toEqual([]);
    // Its own workstation's logoff it may still request.
    const own = await api(t, 'POST', '/api/v1/approvals', {
      token: limited,
      body: { request: { kind: 'host_logoff', host_id: ids['IN-01'], session_id: 2 }, reason: 'own host' },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: [] } });
  });
});
