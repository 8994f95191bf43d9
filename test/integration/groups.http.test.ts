import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-10T12:00:00.000Z');

describe.each(STORE_KINDS)('host groups on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  const clock = new ManualClock(NOW);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    const hosts = [
      { hostname: 'web-01', os_family: 'linux', product: 'ssh-monitor', ipv4: '10.1.0.5' },
      { hostname: 'web-02', os_family: 'linux', product: 'ssh-monitor', ipv4: '10.2.0.5' },
      { hostname: 'RDS-01', os_family: 'windows', product: 'rdp-login-monitor', ipv4: '10.1.0.9' },
    ] as const;
    for (const h of hosts) {
      await ingestEvent(t, {
        host: { hostname: h.hostname, os_family: h.os_family, ipv4: h.ipv4, display_name: h.hostname },
        source: { product: h.product, product_version: '2.1.7-SAC', agent_instance_id: `agent-${h.hostname}` },
        type: h.os_family === 'linux' ? 'ssh.login.failed' : 'rdp.login.failed',
        severity: 'high',
        occurred_at: isoAt(NOW - 60_000),
      });
    }
    for (const h of (await api(t, 'GET', '/api/v1/hosts', { token: admin })).body.items as { id: string; hostname: string }[]) ids[h.hostname] = h.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const members = (body: { members: { hostname: string }[] }) => body.members.map((m) => m.hostname).sort();

  it('computes members from named hosts and rules, shows them per group and per host, and audits changes', async () => {
    const created = await api(t, 'POST', '/api/v1/groups', {
      token: admin,
      body: { name: '  Linux web ', description: 'front ends', rules: { host_patterns: ['WEB-*'], os_families: ['linux'] } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Linux web', description: 'front ends', member_count: 2 });
    const id = created.body.id as string;

    const office = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Office', host_ids: [ids['RDS-01']], rules: { cidrs: ['10.1.0.0/16'] } } });
    expect(office.status).toBe(201);
    const detail = await api(t, 'GET', `/api/v1/groups/${office.body.id}`, { token: monitor });
    expect(members(detail.body)).toEqual(['RDS-01', 'web-01']);
    expect(detail.body.members.find((m: { hostname: string }) => m.hostname === 'RDS-01')).toMatchObject({ explicit: true, by_rules: true });
    expect(detail.body.members.find((m: { hostname: string }) => m.hostname === 'web-01')).toMatchObject({ explicit: false, by_rules: true });

    // A host may be in several groups; the per-host view lists them, over both transports.
    const ofWeb01 = await api(t, 'GET', `/api/v1/hosts/${ids['web-01']}/groups`, { token: monitor });
    expect(ofWeb01.body.groups.map((g: { name: string }) => g.name)).toEqual(['Linux web', 'Office']);
    expect((await trpc(t, monitor, 'query', 'groups.ofHost', { id: ids['web-02'] })).data).toEqual([{ id, name: 'Linux web' }]);

    const preview = await api(t, 'POST', '/api/v1/groups/preview', { token: admin, body: { rules: { agent_products: ['rdp-login-monitor'] } } });
    expect(preview.body.members.map((m: { hostname: string }) => m.hostname)).toEqual(['RDS-01']);

    const changed = await api(t, 'PUT', `/api/v1/groups/${id}`, { token: admin, body: { name: 'Linux web', rules: { host_patterns: ['web-*'], cidrs: ['10.2.0.0/16'] } } });
    expect(changed.body).toMatchObject({ member_count: 1, description: '' });
    expect((await api(t, 'DELETE', `/api/v1/groups/${id}`, { token: admin })).status).toBe(204);
    expect((await api(t, 'GET', `/api/v1/groups/${id}`, { token: admin })).status).toBe(404);
    expect((await api(t, 'GET', '/api/v1/groups', { token: monitor })).body.groups.map((g: { name: string }) => g.name)).toEqual(['Office']);

    const audit = await api(t, 'GET', '/api/v1/audit?action=group.', { token: admin });
    expect(audit.body.entries.map((e: { action: string; target: string }) => `${e.action} ${e.target}`)).toEqual(
      expect.arrayContaining([`group.created group:${id}`, `group.updated group:${id}`, `group.deleted group:${id}`]),
    );
  });

  it('lets only admins change groups, refuses duplicate names and malformed ranges', async () => {
    expect((await api(t, 'POST', '/api/v1/groups', { token: monitor, body: { name: 'Mine' } })).status).toBe(403);
    expect((await api(t, 'POST', '/api/v1/groups/preview', { token: monitor, body: {} })).status).toBe(403);
    const first = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Unique' } });
    expect(first.status).toBe(201);
    const again = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'UNIQUE' } });
    expect([again.status, again.body.error.code]).toEqual([409, 'group/duplicate_name']);
    const other = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Other' } });
    const renamed = await api(t, 'PUT', `/api/v1/groups/${other.body.id}`, { token: admin, body: { name: 'unique' } });
    expect([renamed.status, renamed.body.error.code]).toEqual([409, 'group/duplicate_name']);
    const badRange = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Bad', rules: { cidrs: ['10.0.0.0/33'] } } });
    expect([badRange.status, badRange.body.error.code, badRange.body.error.details]).toEqual([400, 'group/invalid_rules', { cidrs: ['10.0.0.0/33'] }]);
    expect((await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: ' \t ' } })).status).toBe(400);
    expect((await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Many', rules: { host_patterns: Array(21).fill('a*') } } })).status).toBe(400);
    expect((await api(t, 'PUT', '/api/v1/groups/nope', { token: admin, body: { name: 'Nope' } })).status).toBe(404);
    expect((await api(t, 'DELETE', '/api/v1/groups/nope', { token: admin })).status).toBe(404);
  });

  it('narrows the event, problem and host lists to a group, over REST and tRPC', async () => {
    const group = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Web filter', host_ids: [ids['RDS-01']], rules: { host_patterns: ['web-0?'], cidrs: ['10.2.0.0/16'] } } });
    const g = group.body.id as string;
    const hostnamesOf = (items: { hostname: string }[]) => [...new Set(items.map((i) => i.hostname))].sort();

    const events = await api(t, 'GET', `/api/v1/events?group=${g}`, { token: monitor });
    expect(hostnamesOf(events.body.items)).toEqual(['RDS-01', 'web-02']);
    expect(hostnamesOf((await api(t, 'GET', '/api/v1/events', { token: monitor })).body.items)).toEqual(['RDS-01', 'web-01', 'web-02']);
    // Combined with a host filter: the intersection.
    expect((await api(t, 'GET', `/api/v1/events?group=${g}&host_id=${ids['web-01']}`, { token: monitor })).body.items).toEqual([]);
    expect(hostnamesOf((await api(t, 'GET', `/api/v1/problems?group=${g}`, { token: monitor })).body.items)).toEqual(['RDS-01', 'web-02']);
    expect((await api(t, 'GET', `/api/v1/problems?group=${g}&host=web-01`, { token: monitor })).body.items).toEqual([]);
    expect(hostnamesOf((await api(t, 'GET', `/api/v1/hosts?group=${g}&sort=hostname`, { token: monitor })).body.items)).toEqual(['RDS-01', 'web-02']);

    for (const procedure of ['events.list', 'problems.list', 'hosts.list']) {
      const viaTrpc = await trpc(t, monitor, 'query', procedure, { group: g });
      expect([procedure, hostnamesOf((viaTrpc.data as { items: { hostname: string }[] }).items)]).toEqual([procedure, ['RDS-01', 'web-02']]);
    }

    for (const path of ['/api/v1/events', '/api/v1/problems', '/api/v1/hosts']) {
      const unknown = await api(t, 'GET', `${path}?group=no-such-group`, { token: monitor });
      expect([path, unknown.status, unknown.body.error.code]).toEqual([path, 404, 'group/not_found']);
    }
  });
});
