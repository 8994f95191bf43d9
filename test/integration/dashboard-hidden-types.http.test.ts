import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const MINUTE = 60_000;
const NOW = Date.parse('2026-06-10T12:30:00.000Z');
const HOSTS = ['WS-A', 'WS-B', 'WS-C'];

interface Summary {
  events_24h: number;
  by_severity: Record<string, number>;
  top_hosts: { hostname: string; count: number }[];
  top_types: { type: string; count: number }[];
  recent_events: { type: string }[];
  heartbeats: { hidden: boolean; received_24h: number; hosts_reporting: number };
  daily_reports_24h: { total: number };
}

// The case: heartbeats ingested first, `agent.heartbeat` hidden afterwards.
describe.each(STORE_KINDS)('one hidden-type rule for every dashboard figure on %s', (kind) => {
  let t: TestSac;
  let token: string;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    token = await adminToken(t);
    for (const [i, hostname] of HOSTS.entries()) {
      const host = { hostname, os_family: 'windows' as const, ipv4: `10.0.0.${50 + i}` };
      for (let beat = 1; beat <= 3; beat++) {
        await ingest(t, { host, type: 'agent.heartbeat', category: 'agent', severity: 'info', title: 'heartbeat', occurred_at: isoAt(NOW - beat * MINUTE) });
      }
      for (let n = 0; n <= i; n++) {
        await ingest(t, { host, type: 'rdp.login.failed', severity: 'info', title: 'failed', occurred_at: isoAt(NOW - 10 * MINUTE - n * MINUTE) });
      }
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const summary = async (): Promise<Summary> => (await api(t, 'GET', '/api/v1/dashboards/summary', { token })).body;
  const topHostsSum = (s: Summary) => s.top_hosts.reduce((n, h) => n + h.count, 0);

  it('counts every type while none is hidden', async () => {
    const s = await summary();
    expect(s.events_24h).toBe(9 + 6);
    expect(topHostsSum(s)).toBe(s.events_24h);
    expect(s.heartbeats).toEqual({ hidden: false, received_24h: 9, hosts_reporting: 3 });
  });

  it('leaves a type hidden after ingest out of every event figure, and keeps host liveness', async () => {
    expect((await api(t, 'PATCH', '/api/v1/settings/hidden_types', { token, body: { types: ['agent.heartbeat'] } })).status).toBe(200);
    const s = await summary();
    expect(s.events_24h).toBe(6);
    expect(Object.values(s.by_severity).reduce((a, b) => a + b, 0)).toBe(6);
    expect(topHostsSum(s)).toBe(s.events_24h);
    expect(s.top_hosts.map((h) => [h.hostname, h.count])).toEqual([
      ['WS-C', 3],
      ['WS-B', 2],
      ['WS-A', 1],
    ]);
    expect(s.top_types).toEqual([{ type: 'rdp.login.failed', count: 6 }]);
    expect(s.recent_events.every((e) => e.type !== 'agent.heartbeat')).toBe(true);
    // The tile says the type is hidden rather than "0 heartbeats"; hosts are alive all the same.
    expect(s.heartbeats).toEqual({ hidden: true, received_24h: 0, hosts_reporting: 3 });

    const hours = (await trpc(t, token, 'query', 'dashboards.eventsPerHour')).data as { by_severity: Record<string, number> }[];
    expect(hours.flatMap((h) => Object.values(h.by_severity)).reduce((a, b) => a + b, 0)).toBe(6);
    expect((await trpc(t, token, 'query', 'dashboards.summary')).data).toMatchObject({ events_24h: 6, top_hosts: s.top_hosts });
  });

  it('hides a whole prefix the same way, and counts again once shown', async () => {
    expect((await api(t, 'PATCH', '/api/v1/settings/hidden_types', { token, body: { types: ['rdp'] } })).status).toBe(200);
    const s = await summary();
    expect(s.events_24h).toBe(9);
    expect(topHostsSum(s)).toBe(9);
    expect(s.top_hosts.every((h) => h.count === 3)).toBe(true);

    expect((await api(t, 'PATCH', '/api/v1/settings/hidden_types', { token, body: { types: [] } })).status).toBe(200);
    expect(topHostsSum(await summary())).toBe(15);
  });
});
