import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('read API, overrides and hidden types on %s', (kind) => {
  let t: TestSac;
  let token: string;
  let monitor: string;
  const clock = new ManualClock(NOW);
  const get = async (path: string, tok: string | null = token) => api(t, 'GET', path, { token: tok });

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    token = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    // WEB01 (linux): failed logins, a heartbeat and a daily report; RDS02 (windows): mixed severities.
    const web = { host: { hostname: 'WEB01', os_family: 'linux' as const, display_name: 'web front (192.0.2.10)', ipv4: '192.0.2.10' }, source: { product: 'ssh-monitor' as const, product_version: '1.1.2-ipset' } };
    for (let i = 0; i < 3; i++) {
      await ingest(t, { ...web, type: 'ssh.login.failed', severity: 'warning', title: `SSH failed #${i}`, summary: 'root from 198.51.100.7', occurred_at: isoAt(NOW - (i + 1) * MIN), details: { user: 'root', ip_address: '198.51.100.7' } });
    }
    await ingest(t, { ...web, type: 'agent.heartbeat', category: 'agent', severity: 'info', title: 'heartbeat', occurred_at: isoAt(NOW - 30 * MIN) });
    await ingest(t, { ...web, type: 'report.daily.ssh', category: 'report', severity: 'info', title: 'daily', occurred_at: isoAt(NOW - 60 * MIN) });
    const rds = { host: { hostname: 'RDS02' } };
    await ingest(t, { ...rds, type: 'rdp.login.success', severity: 'info', title: 'Вход ivanov', occurred_at: isoAt(NOW - 10 * MIN) });
    await ingest(t, { ...rds, type: 'rdp.bruteforce.burst', severity: 'high', title: 'burst', occurred_at: isoAt(NOW - 11 * MIN) });
    await ingest(t, { ...rds, type: 'auth.account.locked', severity: 'critical', title: 'locked', occurred_at: isoAt(NOW - 12 * MIN) });
    // Two days old: outside every 24 h figure, and on another calendar day.
    await ingest(t, { ...rds, type: 'rdp.login.failed', severity: 'warning', title: 'old failure', occurred_at: '2026-06-02T05:30:00.000+10:00' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists events newest first with host, actor, agent version and flap mark, filtered and paged by cursor', async () => {
    const all = (await get('/api/v1/events?limit=500')).body;
    expect(all.items).toHaveLength(9);
    const times = all.items.map((e: any) => Date.parse(e.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.items[0]).toMatchObject({ hostname: 'WEB01', actor_user: 'root', agent_version: '1.1.2-ipset', rdg_flap: false, type: 'ssh.login.failed' });
    expect(all.items[0].host_id).toEqual(expect.any(String));
    expect(all.next_cursor).toBeNull();

    // tRPC and the event detail show the same stored additions as the REST list.
    const first = { actor_user: 'root', agent_version: '1.1.2-ipset', agent_product: 'ssh-monitor', rdg_flap: false };
    const viaTrpc = await trpc(t, monitor, 'query', 'events.list', { limit: 500 });
    expect(viaTrpc.data.items[0]).toMatchObject({ event_id: all.items[0].event_id, ...first });
    expect((await get(`/api/v1/events/${all.items[0].event_id}`, monitor)).body).toMatchObject(first);
    expect((await trpc(t, monitor, 'query', 'events.byId', { id: all.items[0].event_id })).data).toMatchObject(first);

    const byHost = (await get('/api/v1/events?hostname=web01')).body.items;
    expect(byHost).toHaveLength(5);
    expect((await get(`/api/v1/events?host_id=${byHost[0].host_id}&severity=warning`)).body.items).toHaveLength(3);
    expect((await get('/api/v1/events?severity=high,critical')).body.items.map((e: any) => e.type).sort()).toEqual(['auth.account.locked', 'rdp.bruteforce.burst']);
    expect((await get('/api/v1/events?type=rdp')).body.items).toHaveLength(3);
    expect((await get('/api/v1/events?type=rdp.login')).body.items).toHaveLength(2);
    expect((await get('/api/v1/events?type=rdp.login.failed')).body.items).toHaveLength(1);
    expect((await get(`/api/v1/events?q=${encodeURIComponent('вход')}`)).body.items).toHaveLength(1);
    expect((await get('/api/v1/events?q=198.51.100')).body.items).toHaveLength(3);
    expect((await get('/api/v1/events?date=2026-06-01')).body.items).toHaveLength(1);
    expect((await get('/api/v1/events?date=2026-06-02&tz=Australia/Sydney')).body.items).toHaveLength(1);
    expect((await get('/api/v1/events?date=2026-06-02')).body.items).toHaveLength(0);
    expect((await get(`/api/v1/events?from=${isoAt(NOW - 11 * MIN)}&to=${isoAt(NOW - 2 * MIN)}`)).body.items).toHaveLength(3);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await get(`/api/v1/events?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(...res.body.items.map((e: any) => e.event_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual(all.items.map((e: any) => e.event_id));

    const one = await get(`/api/v1/events/${all.items[0].event_id}`);
    expect(one.body).toMatchObject({ event_id: all.items[0].event_id, event: { schema_version: '1.0' } });
  });

  it.each([
    ['limit=501', 'limit'],
    ['limit=abc', 'limit'],
    ['severity=urgent', 'severity'],
    ['type=Bad%20Type', 'type'],
    ['date=2026-13-01', 'date'],
    ['date=2026-06-01&tz=Mars/Olympus', 'tz'],
    ['from=yesterday', 'from'],
    ['cursor=not-a-cursor', 'cursor'],
    ['colour=red', 'colour'],
  ])('answers 400 naming the parameter for ?%s', async (query, parameter) => {
    const res = await get(`/api/v1/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'request/invalid_parameter', details: { parameter } });
    expect(res.body.error.message.startsWith(`${parameter}:`)).toBe(true);
  });

  it('answers 404 JSON for unknown ids and 400 for bad problem filters', async () => {
    for (const path of ['/api/v1/events/3f1c2b9e-8d4a-4c7e-9b1f-000000000000', '/api/v1/hosts/nope', '/api/v1/problems/nope', '/problems/nope']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toMatch(/\/not_found$/);
    }
    expect((await get('/problems?status=closed')).body.error.details.parameter).toBe('status');
    expect((await get('/api/v1/problems?limit=0')).body.error.details.parameter).toBe('limit');
    expect((await get('/api/v1/events', null)).status).toBe(401);
  });

  it('lists hosts with status, last seen, agent and open problem count, searchable by name and IP', async () => {
    const hosts = (await get('/api/v1/hosts', monitor)).body.items;
    expect(hosts.map((h: any) => h.hostname).sort()).toEqual(['RDS02', 'WEB01']);
    const web = hosts.find((h: any) => h.hostname === 'WEB01');
    expect(web).toMatchObject({ status: 'online', agent_product: 'ssh-monitor', agent_version: '1.1.2-ipset', open_problems: 1, os_family: 'linux', last_seen: isoAt(NOW) });
    // No SSH administrator access probe has run yet: unknown, not false.
    expect(web).toMatchObject({ ssh_admin_ok: null, ssh_admin_checked_at: null, agent_instance_id: expect.any(String) });
    expect((await get('/api/v1/hosts?q=192.0.2')).body.items.map((h: any) => h.hostname)).toEqual(['WEB01']);
    expect((await get('/api/v1/hosts?q=front')).body.items).toHaveLength(1);
    expect((await get('/api/v1/hosts?q=zzz')).body.items).toHaveLength(0);
    const detail = (await get(`/api/v1/hosts/${web.id}`)).body;
    expect(detail).toMatchObject({ id: web.id, inventory: null, agent_instance_ids: [web.agent_instance_id] });
    const problems = (await get('/problems?host=WEB01')).body.items;
    expect(problems).toHaveLength(1);
    expect((await get(`/problems?host=${web.id}&type=ssh&severity=warning&status=open,acknowledged&rule=severity`)).body.items).toHaveLength(1);
    expect((await get(`/problems?from=${isoAt(NOW + MIN)}`)).body.items).toHaveLength(0);
    expect((await get('/problems/' + problems[0].id)).body.timeline).toHaveLength(3);
  });

  it('summarises the dashboard from rollups', async () => {
    const s = (await get('/api/v1/dashboards/summary', monitor)).body;
    expect(s).toMatchObject({
      events_24h: 8,
      by_severity: { info: 3, warning: 3, high: 1, critical: 1 },
      open_problems: 4,
      problems_24h: 4,
      resolved_24h: 0,
      hosts: { total: 2, online: 2, stale: 0 },
      heartbeats: { received_24h: 1, hosts_reporting: 1 },
      daily_reports_24h: { ssh: 1, rdp: 0, total: 1 },
    });
    expect(s.recent_events).toHaveLength(9);
    expect(s.top_hosts.map((h: any) => [h.hostname, h.count])).toEqual([['WEB01', 5], ['RDS02', 3]]);
    expect(s.top_types[0]).toEqual({ type: 'ssh.login.failed', count: 3 });
    const trpc = await api(t, 'GET', '/trpc/dashboards.summary', { token: monitor });
    expect(trpc.body.result.data.events_24h).toBe(8);
  });

  it('filters events by acting user and address, orders them either way with a cursor, and counts all matches on request', async () => {
    const byUser = (await get('/api/v1/events?user=root&total=true')).body;
    expect(byUser.items.map((e: any) => e.actor_user)).toEqual(['root', 'root', 'root']);
    expect(byUser.total).toBe(3);
    expect((await get('/api/v1/events?ip=198.51.100.7')).body.items).toHaveLength(3);
    expect((await get('/api/v1/events?ip=198.51.100.8')).body.items).toHaveLength(0);
    expect((await get('/api/v1/events?user=nobody&total=true')).body).toEqual({ items: [], next_cursor: null, total: 0 });
    expect((await get('/api/v1/events')).body.total).toBeUndefined();
    const newest = (await get('/api/v1/events?hostname=WEB01&limit=50')).body.items.map((e: any) => e.event_id);
    const oldest: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await get(`/api/v1/events?hostname=WEB01&order=asc&limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      oldest.push(...page.items.map((e: any) => e.event_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(oldest).toEqual([...newest].reverse());
    const trpcPage = await api(t, 'GET', `/trpc/events.list?input=${encodeURIComponent(JSON.stringify({ hostname: 'WEB01', total: true, limit: 1 }))}`, { token });
    expect(trpcPage.body.result.data.total).toBe(newest.length);
    expect((await get('/api/v1/events?order=up')).body.error.details.parameter).toBe('order');
  });

  it('applies severity overrides at ingest keeping the original, and leaves hidden types out of everything', async () => {
    const patch = async (category: string, values: unknown) =>
      expect((await api(t, 'PATCH', `/api/v1/settings/${category}`, { token, body: values })).status).toBe(200);
    await patch('severity_overrides', { overrides: { 'rdp.login.success': 'high', 'smb': 'info' } });
    await patch('hidden_types', { types: ['agent.notification'] });
    const raised = await ingest(t, { host: { hostname: 'OVR01' }, type: 'rdp.login.success', severity: 'info', occurred_at: isoAt(NOW - MIN) });
    const lowered = await ingest(t, { host: { hostname: 'OVR01' }, type: 'smb.admin_share.access', severity: 'warning', occurred_at: isoAt(NOW - MIN) });
    await ingest(t, { host: { hostname: 'OVR01' }, type: 'agent.notification', category: 'agent', severity: 'critical', occurred_at: isoAt(NOW - MIN) });
    expect((await get(`/api/v1/events/${raised}`)).body).toMatchObject({ severity: 'high', original_severity: 'info', event: { severity: 'info' } });
    expect((await get(`/api/v1/events/${lowered}`)).body).toMatchObject({ severity: 'info', original_severity: 'warning' });
    const problems = (await get('/problems?host=OVR01')).body.items;
    expect(problems.map((p: any) => [p.type, p.severity])).toEqual([['rdp.login.success', 'high']]);
    const events = (await get('/api/v1/events?hostname=OVR01')).body.items.map((e: any) => e.type);
    expect(events.sort()).toEqual(['rdp.login.success', 'smb.admin_share.access']);
    expect(await t.sac.store.events.count()).toBe(12);
    const s = (await get('/api/v1/dashboards/summary')).body;
    expect(s.events_24h).toBe(10);
    expect(s.top_hosts.find((h: any) => h.hostname === 'OVR01').count).toBe(2);
    expect(s.recent_events.some((e: any) => e.type === 'agent.notification')).toBe(false);
    // Hiding a type later hides what is stored already: problems and counters of ssh.* disappear.
    await patch('hidden_types', { types: ['agent.notification', 'ssh'] });
    expect((await get('/problems?host=WEB01')).body.items).toHaveLength(0);
    expect((await get('/api/v1/hosts?q=web01')).body.items[0].open_problems).toBe(0);
    expect((await get('/api/v1/events?hostname=web01')).body.items.map((e: any) => e.type).sort()).toEqual(['agent.heartbeat', 'report.daily.ssh']);
    expect((await get('/api/v1/dashboards/summary')).body.events_24h).toBe(7);
    await patch('hidden_types', { types: [] });
  });

  it('deletes a host with its events and problems (admin only); the next event recreates it', async () => {
    const web = (await get('/api/v1/hosts?q=web01')).body.items[0];
    expect((await api(t, 'DELETE', `/api/v1/hosts/${web.id}`, { token: monitor })).status).toBe(403);
    expect((await api(t, 'DELETE', `/api/v1/hosts/${web.id}`, { token })).status).toBe(204);
    expect((await api(t, 'DELETE', `/api/v1/hosts/${web.id}`, { token })).status).toBe(404);
    expect((await get(`/api/v1/hosts/${web.id}`)).status).toBe(404);
    expect((await get('/api/v1/events?hostname=web01')).body.items).toHaveLength(0);
    expect((await get('/problems?host=WEB01')).body.items).toHaveLength(0);
    const s = (await get('/api/v1/dashboards/summary')).body;
    // 11 visible once nothing is hidden, minus WEB01's 5.
    expect(s.events_24h).toBe(6);
    expect(s.top_hosts.some((h: any) => h.host_id === web.id)).toBe(false);
    expect(s.daily_reports_24h.total).toBe(0);
    const audit = await t.sac.audit.list({ action: 'host.deleted', limit: 10 } as any);
    expect(audit.map((a: any) => a.target)).toEqual([`host:${web.id}`]);
    await ingest(t, { host: { hostname: 'WEB01', os_family: 'linux' }, source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' }, type: 'agent.heartbeat', category: 'agent', severity: 'info', occurred_at: isoAt(NOW) });
    const again = (await get('/api/v1/hosts?q=web01')).body.items;
    expect(again).toHaveLength(1);
    expect(again[0].id).not.toBe(web.id);
  });

  it('takes the stale threshold per agent product from settings', async () => {
    const status = async (q: string) => (await get(`/api/v1/hosts?q=${q}`)).body.items[0].status;
    expect((await api(t, 'PATCH', '/api/v1/settings/host_status', { token, body: { stale_minutes_by_product: { 'ssh-monitor': 2.5 } } })).status).toBe(200);
    clock.advance(2 * MIN);
    expect([await status('web01'), await status('rds02')]).toEqual(['online', 'online']);
    clock.advance(MIN);
    expect([await status('web01'), await status('rds02')]).toEqual(['stale', 'online']);
    const summary = (await get('/api/v1/dashboards/summary')).body;
    expect(summary.hosts).toEqual({ total: 3, online: 2, stale: 1, outdated: 0 });
  });

  it('counts daily reports as the daily report does: by arrival, once per host and platform', async () => {
    const before = (await get('/api/v1/dashboards/summary')).body.daily_reports_24h;
    const late = { host: { hostname: 'LATE01', os_family: 'windows' as const }, type: 'report.daily.rdp', category: 'report' as const, severity: 'info' as const, occurred_at: isoAt(NOW - 3 * 24 * 60 * MIN) };
    await ingest(t, late);
    await ingest(t, late);
    expect((await get('/api/v1/dashboards/summary')).body.daily_reports_24h).toEqual({ ssh: before.ssh, rdp: before.rdp + 1, total: before.total + 1 });
  });
});
