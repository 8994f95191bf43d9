import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-06-10T12:30:00.000Z');

describe.each(STORE_KINDS)('host list: activity sparkline, inventory time, server-side sort on %s', (kind) => {
  let t: TestSac;
  let token: string;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    token = await adminToken(t);
    // Received ten minutes before BUSY's events: the last-event column orders them.
    clock.set(NOW - 10 * 60_000);
    const quiet = { host: { hostname: 'quiet', ipv4: '10.0.0.9' } };
    await ingest(t, { ...quiet, type: 'agent.inventory', category: 'agent', severity: 'info', title: 'inventory', occurred_at: isoAt(NOW - 72 * HOUR), details: { inventory: { schema_version: '1.0', computer_name: 'quiet' } } });
    await ingest(t, { ...quiet, type: 'rdp.login.success', severity: 'info', title: 'login', occurred_at: isoAt(NOW - 23 * HOUR) });
    clock.set(NOW);
    const busy = { host: { hostname: 'BUSY', ipv4: '10.0.0.10' } };
    // BUSY: 3 events in the current hour, 2 five hours ago, 1 a day and a half ago (outside the sparkline).
    for (const ago of [0, 0.1, 0.2, 5, 5.1, 36]) {
      await ingest(t, { ...busy, type: 'ssh.login.failed', severity: 'warning', title: `failed ${ago}`, occurred_at: isoAt(NOW - ago * HOUR) });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const list = async (q = '') => (await api(t, 'GET', `/api/v1/hosts${q}`, { token })).body.items as Record<string, any>[];

  it('gives each host its events per hour over the last 24 h and its inventory time', async () => {
    const hosts = await list();
    const busy = hosts.find((h) => h.hostname === 'BUSY')!;
    const quiet = hosts.find((h) => h.hostname === 'quiet')!;
    expect(busy.activity).toHaveLength(24);
    expect(busy.activity[23]).toBe(3);
    expect(busy.activity[23 - 5]).toBe(2);
    expect(busy.activity.reduce((a: number, b: number) => a + b, 0)).toBe(5);
    expect(busy.inventory_at).toBeNull();
    expect(quiet.activity[0]).toBe(1);
    expect(quiet.activity.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    expect(Date.parse(quiet.inventory_at)).toBe(NOW - 72 * HOUR);
    expect(busy.last_event_at).toBe(isoAt(NOW));
  });

  it('sorts by a whitelisted column in both directions, on REST and tRPC', async () => {
    const names = async (q: string) => (await list(q)).map((h) => h.hostname);
    expect(await names('')).toEqual(['BUSY', 'quiet']);
    expect(await names('?sort=hostname&dir=desc')).toEqual(['quiet', 'BUSY']);
    expect(await names('?sort=ip')).toEqual(['quiet', 'BUSY']);
    expect(await names('?sort=last_event&dir=desc')).toEqual(['BUSY', 'quiet']);
    expect(await names('?sort=last_event&dir=asc')).toEqual(['quiet', 'BUSY']);
    const viaTrpc = await trpc(t, token, 'query', 'hosts.list', { sort: 'ip', dir: 'desc' });
    expect(viaTrpc.data.items.map((h: { hostname: string }) => h.hostname)).toEqual(['BUSY', 'quiet']);
    const bad = await api(t, 'GET', '/api/v1/hosts?sort=os', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.parameter).toBe('sort');
  });
});
