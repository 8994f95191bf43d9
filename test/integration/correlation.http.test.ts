import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '../../daemon/src/bus.js';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ManualClock, waitFor } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('correlation and problems over HTTP on %s', (kind) => {
  let t: TestSac;
  let token: string;
  let monitor: string;
  const clock = new ManualClock(T0 + 12 * 60 * MIN);
  const messages: BusMessage[] = [];

  beforeAll(async () => {
    t = await startTestSac(
      kind,
      { SAC_CORRELATION_WINDOW_MINUTES: '60', SAC_SILENCE_SCAN_SECONDS: '3600', SAC_SILENCE_REOPEN_COOLDOWN_MINUTES: '30', SAC_SESSION_TTL_MINUTES: '43200' },
      { clock },
    );
    t.sac.bus.subscribe((m) => messages.push(m));
    token = await adminToken(t);
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
  });

  const problemsOf = async (query: string) => (await api(t, 'GET', `/api/v1/problems?${query}`, { token })).body.items as any[];

  it('correlates by host, type and window; late events by occurred time; replays linked, not counted', async () => {
    const host = { hostname: 'CORR01' };
    const base = { host, type: 'rdp.login.failed', severity: 'warning' as const };
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 5 * 60 * MIN) });
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 5 * 60 * MIN + 20 * MIN), severity: 'high' });
    // Hours late and out of order: falls 30 min before the problem's first event → same problem.
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 4 * 60 * MIN + 30 * MIN) });
    // A replay: same content under a new event_id.
    const replayId = await ingest(t, { ...base, occurred_at: isoAt(T0 + 5 * 60 * MIN) });
    // Two hours before: its own problem.
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 2 * 60 * MIN) });
    // Not problems: info, heartbeats, inventory, reports, agent.test.
    await ingest(t, { host, type: 'rdp.login.success', severity: 'info', occurred_at: isoAt(T0 + 5 * 60 * MIN) });
    await ingest(t, { host, type: 'agent.heartbeat', category: 'agent', severity: 'high', occurred_at: isoAt(T0 + 5 * 60 * MIN) });
    await ingest(t, { host, type: 'report.daily.rdp', category: 'report', severity: 'high', occurred_at: isoAt(T0 + 5 * 60 * MIN) });
    await ingest(t, { host, type: 'agent.test', category: 'agent', severity: 'critical', occurred_at: isoAt(T0 + 5 * 60 * MIN) });

    const list = await problemsOf('host=corr01');
    expect(list.map((p) => [p.type, p.rule, p.count, p.status])).toEqual([
      ['rdp.login.failed', 'severity', 3, 'open'],
      ['rdp.login.failed', 'severity', 1, 'open'],
    ]);
    const [main] = list;
    expect(main).toMatchObject({ severity: 'high', first_seen: isoAt(T0 + 4.5 * 60 * MIN), last_seen: isoAt(T0 + 5 * 60 * MIN + 20 * MIN) });
    expect(main.fingerprint).toBe(list[1].fingerprint);
    const detail = await api(t, 'GET', `/problems/${main.id}`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body.timeline).toHaveLength(4);
    expect(detail.body.timeline.find((e: any) => e.event_id === replayId).counted).toBe(false);
    expect(messages.filter((m) => m.type === 'problem.opened' && m.data.hostname === 'CORR01')).toHaveLength(2);
  });

  it('turns 100 parallel matching events into exactly one problem with count 100', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        postEvent(t.url, t.apiKey, buildEvent({ host: { hostname: 'PAR01' }, occurred_at: isoAt(T0 + i * 1000) })),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    const list = await problemsOf('host=PAR01');
    expect(list).toHaveLength(1);
    expect(list[0].count).toBe(100);
  });

  it('acknowledges and resolves by REST and tRPC for both roles, refusing other transitions with 409', async () => {
    await ingest(t, { host: { hostname: 'ACK01' }, occurred_at: isoAt(T0) });
    const [p] = await problemsOf('host=ACK01');
    const ack = await api(t, 'POST', `/problems/${p.id}/acknowledge`, { token: monitor, body: { comment: 'on it' } });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ status: 'acknowledged', acknowledged_by: expect.stringMatching(/^monitor-/), comments: [{ action: 'acknowledge', text: 'on it' }] });
    const again = await api(t, 'POST', `/api/v1/problems/${p.id}/acknowledge`, { token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('problem/invalid_transition');
    const resolved = await api(t, 'POST', `/api/v1/problems/${p.id}/resolve`, { token, body: {} });
    expect(resolved.body).toMatchObject({ status: 'resolved', resolved_by: 'manual', resolved_by_user: t.adminUsername });
    expect((await api(t, 'POST', `/problems/${p.id}/resolve`, { token })).status).toBe(409);
    expect((await api(t, 'POST', `/problems/${p.id}/resolve`, { token: null })).status).toBe(401);
    expect((await api(t, 'POST', `/problems/nope/resolve`, { token })).body.error.code).toBe('problem/not_found');
    expect((await api(t, 'POST', `/problems/${p.id}/resolve`, { token, body: { comment: 5 } })).status).toBe(400);

    await ingest(t, { host: { hostname: 'ACK01' }, occurred_at: isoAt(T0 + 60_000) });
    const [next] = await problemsOf('host=ACK01&status=open');
    expect(next.id).not.toBe(p.id);
    const trpc = await api(t, 'POST', '/trpc/problems.resolve', { token: monitor, body: { id: next.id } });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.status).toBe('resolved');
    const bad = await api(t, 'POST', '/trpc/problems.acknowledge', { token: monitor, body: { id: next.id } });
    expect(bad.status).toBe(409);
    expect(bad.body.error.data.appCode).toBe('problem/invalid_transition');

    const audit = await t.sac.audit.list({ action: 'problem.', limit: 50 } as any);
    expect(audit.filter((a: any) => a.target === `problem:${p.id}`).map((a: any) => a.action).sort()).toEqual(['problem.acknowledged', 'problem.resolved']);
    const streamed = messages.filter((m) => (m.type === 'problem.acknowledged' || m.type === 'problem.resolved') && m.data.id === p.id);
    expect(streamed.map((m) => m.type)).toEqual(['problem.acknowledged', 'problem.resolved']);
  });

  it('raises an RD Gateway flap in either arrival order and marks both events when read', async () => {
    const gw = { host: { hostname: 'RDG01' }, category: 'network' as const, severity: 'info' as const };
    const details = (id: number) => ({ user: 'CORP\\ivanov', internal_ip: '10.0.0.5', external_ip: '203.0.113.9', event_id_windows: id });
    // 303 first, then its 302 (a replaying agent sends newest first).
    const closed = await ingest(t, { ...gw, type: 'rdg.connection.disconnected', occurred_at: isoAt(T0 + 5000), details: details(303) });
    const opened = await ingest(t, { ...gw, type: 'rdg.connection.success', occurred_at: isoAt(T0), details: details(302) });
    // A second flap 20 s later joins the same problem; a 303 15 s after its 302 is no flap.
    await ingest(t, { ...gw, type: 'rdg.connection.success', occurred_at: isoAt(T0 + 20_000), details: details(302) });
    await ingest(t, { ...gw, type: 'rdg.connection.failed', severity: 'info', occurred_at: isoAt(T0 + 22_000), details: details(303) });
    const slowOpen = await ingest(t, { ...gw, type: 'rdg.connection.success', occurred_at: isoAt(T0 + 100_000), details: { ...details(302), internal_ip: '10.0.0.6' } });
    await ingest(t, { ...gw, type: 'rdg.connection.disconnected', occurred_at: isoAt(T0 + 115_000), details: { ...details(303), internal_ip: '10.0.0.6' } });

    const flaps = await problemsOf('rule=rdg_flap&host=RDG01');
    expect(flaps).toHaveLength(1);
    expect(flaps[0]).toMatchObject({ count: 2, type: 'rdg.connection.flap', severity: 'warning' });
    const events = (await api(t, 'GET', '/api/v1/events?hostname=rdg01&type=rdg.connection&limit=500', { token })).body.items as any[];
    const flag = (id: string) => events.find((e) => e.event_id === id).rdg_flap;
    expect([flag(closed), flag(opened), flag(slowOpen)]).toEqual([true, true, false]);
    expect(events.filter((e) => e.rdg_flap)).toHaveLength(4);
    expect((await api(t, 'GET', `/api/v1/events/${opened}`, { token })).body.rdg_flap).toBe(true);
  });

  it('keeps the inventory snapshot and the previous one, and raises hardware_changed naming the parts', async () => {
    const inv = (memory: number) => ({
      schema_version: 1,
      processor: [{ name: 'Xeon', cores: 4, logical_processors: 8 }],
      motherboard: { product: 'X11', manufacturer: 'Supermicro' },
      memory_gb: memory,
      disks: [{ friendly_name: 'SSD', media_type: 'SSD', size_gb: 480 }],
      video: [{ name: 'Matrox' }],
    });
    const base = { host: { hostname: 'INV01' }, type: 'agent.inventory', category: 'agent' as const, severity: 'info' as const };
    await ingest(t, { ...base, occurred_at: isoAt(T0), details: { inventory: inv(32) } });
    expect(await problemsOf('host=INV01')).toHaveLength(0);
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 12 * 60 * MIN), details: { inventory: inv(16) } });
    // An older snapshot arriving late replaces nothing.
    await ingest(t, { ...base, occurred_at: isoAt(T0 + 60 * MIN), details: { inventory: inv(64) } });
    const problems = await problemsOf('host=INV01');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ rule: 'hardware_changed', severity: 'warning', title: 'Hardware changed on INV01: memory' });
    const host = (await api(t, 'GET', `/api/v1/hosts/${problems[0].host_id}`, { token })).body;
    expect(host.inventory.memory_gb).toBe(16);
    expect(host.previous_inventory.memory_gb).toBe(32);
    expect(host.inventory_at).toBe(isoAt(T0 + 12 * 60 * MIN));
  });

  it('marks a host stale after the threshold, opens host_silence, auto-resolves on heartbeat, honours the cooldown', async () => {
    const hb = { host: { hostname: 'SIL01' }, type: 'agent.heartbeat', category: 'agent' as const, severity: 'info' as const };
    // The earlier tests' hosts fall silent with SIL01: as a mass they would open one mass_silence
    // problem and hold back each host_silence (its own test). Here: one host's silence alone.
    expect((await api(t, 'PATCH', '/api/v1/settings/correlation', { token, body: { mass_silence_enabled: false } })).status).toBe(200);
    await ingest(t, { ...hb, occurred_at: isoAt(clock.now()) });
    const hostsRes = await api(t, 'GET', '/api/v1/hosts?q=sil01', { token });
    expect(hostsRes.body).toMatchObject({ items: [{ hostname: 'SIL01' }] });
    const hostId = hostsRes.body.items[0].id;
    const scan = () => t.sac.jobs.tick({ name: 'host_silence', intervalMs: 3_600_000, run: (fence) => t.sac.silence.scan(fence) });
    const silence = async () => (await problemsOf(`host=${hostId}&rule=host_silence`))[0];
    const status = async () => (await api(t, 'GET', `/api/v1/hosts/${hostId}`, { token })).body.status;

    clock.advance(299 * MIN);
    await scan();
    expect(await silence()).toBeUndefined();
    expect(await status()).toBe('online');
    clock.advance(2 * MIN);
    await scan();
    const opened = await silence();
    expect(opened).toMatchObject({ status: 'open', severity: 'high', type: 'host.silence', title: 'No heartbeat from SIL01 for 5 h 1 min' });
    expect(await status()).toBe('stale');
    expect(messages.some((m) => m.type === 'host.status_changed' && m.data.host_id === hostId && m.data.status === 'stale')).toBe(true);
    await scan();
    expect(await problemsOf(`host=${hostId}&rule=host_silence`)).toHaveLength(1);

    await ingest(t, { ...hb, occurred_at: isoAt(clock.now()) });
    expect(await silence()).toMatchObject({ id: opened.id, status: 'resolved', resolved_by: 'auto' });
    expect(await status()).toBe('online');
    expect(messages.some((m) => m.type === 'host.status_changed' && m.data.host_id === hostId && m.data.status === 'online')).toBe(true);

    clock.advance(301 * MIN);
    await scan();
    expect(await silence()).toMatchObject({ id: opened.id, status: 'open', count: 2 });
    expect((await api(t, 'POST', `/problems/${opened.id}/resolve`, { token })).status).toBe(200);
    clock.advance(29 * MIN);
    await scan();
    expect((await silence()).status).toBe('resolved');
    clock.advance(2 * MIN);
    await scan();
    expect(await silence()).toMatchObject({ id: opened.id, status: 'open', count: 3 });
  });

  it('runs the silence scan on its own under the job lease', async () => {
    const t2 = await startTestSac(kind, { SAC_HOST_STALE_MINUTES: '0.001', SAC_SILENCE_SCAN_SECONDS: '0.05' });
    try {
      await postEvent(t2.url, t2.apiKey, buildEvent({ host: { hostname: 'AUTO01' }, type: 'agent.heartbeat', category: 'agent', severity: 'info' }));
      const problem = await waitFor('the silence problem', async () => {
        const [p] = await t2.sac.store.problems.list({ rule: 'host_silence', hidden: [], limit: 5 });
        return p;
      });
      expect(problem.hostname).toBe('AUTO01');
    } finally {
      await t2.close();
    }
  });
});
