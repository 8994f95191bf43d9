import { afterEach, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

const MIN = 60_000;
const T0 = Date.parse('2026-06-03T09:00:00.000Z');
/** The job's interval in this test: its lease then lasts three of them. */
const INTERVAL_MS = 60 * MIN;
const LEASE_MS = 3 * INTERVAL_MS;

describe.each(STORE_KINDS)('a leader job paused past its lease (%s)', (kind) => {
  let t: TestSac | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('writes nothing once another daemon has taken the silence scan over, and scans again once it leads', async () => {
    const clock = new ManualClock(T0);
    const sac = (t = await startTestSac(kind, {}, { clock }));
    const token = await adminToken(sac);
    await ingestEvent(sac, { host: { hostname: 'FENCE01' }, type: 'agent.heartbeat', category: 'agent', severity: 'info', occurred_at: isoAt(clock.now()) });
    const hostId = (await api(sac, 'GET', '/api/v1/hosts?q=fence01', { token })).body.items[0].id as string;
    // The status the scan records (the hosts API computes its own from the heartbeat age).
    const recorded = async () => (await sac.sac.store.hostState.byHost(hostId))?.status ?? 'online';
    const silenceProblems = async () => (await api(sac, 'GET', `/api/v1/problems?host=${hostId}&rule=host_silence`, { token })).body.items as unknown[];
    // Past the stale threshold (5 h without a heartbeat): a scan would mark the host stale and open a problem.
    clock.advance(301 * MIN);

    let resume!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    let started!: () => void;
    const reached = new Promise<void>((r) => (started = r));
    const paused = sac.sac.jobs.tick({
      name: 'host_silence',
      intervalMs: INTERVAL_MS,
      run: async (fence) => {
        started();
        await gate; // a GC pause, a stalled store call…
        await sac.sac.silence.scan(fence);
      },
    });
    await reached;
    // Meanwhile the lease runs out and another daemon of the cluster takes the scan over.
    clock.advance(LEASE_MS + 1);
    expect(await sac.sac.store.leases.acquire('host_silence', 'another-daemon', clock.now(), LEASE_MS)).toBe(2);
    resume();
    await paused;
    expect(await recorded()).toBe('online');
    expect(await silenceProblems()).toEqual([]);
    expect(sac.logs.some((l) => l.includes('another daemon leads it now'))).toBe(true);

    // Once the other daemon has let go, this one leads again (a higher token) and its scan writes.
    await sac.sac.store.leases.release('host_silence', 'another-daemon');
    await sac.sac.jobs.tick({ name: 'host_silence', intervalMs: INTERVAL_MS, run: (fence) => sac.sac.silence.scan(fence) });
    expect(await sac.sac.store.leases.token('host_silence')).toBe(3);
    expect(await recorded()).toBe('stale');
    expect(await silenceProblems()).toHaveLength(1);
  });
});
