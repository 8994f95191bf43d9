import { afterEach, describe, expect, it } from 'vitest';
import { agentLifecycleEvent } from '../../../test/helpers/events.js';
import { FakeClock } from '../../../test/helpers/fake-clock.js';
import { CORRELATION, FakeClockJobs, ingestNow, openMemoryStore, silentLogger } from '../../../test/helpers/services.js';
import { Bus, type BusMessage } from '../bus.js';
import type { Store } from '../store/index.js';
import { SilenceScanner } from './liveness.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MINUTE = 60_000;
const WS01 = { hostname: 'WS01', os_family: 'windows', product: 'rdp-login-monitor' } as const;

describe('host silence, the host_silence job on a fake clock', () => {
  let store: Store;
  let jobs: FakeClockJobs;
  afterEach(async () => {
    await jobs?.stop();
    await store?.close();
  });

  async function start(): Promise<{ clock: FakeClock; published: BusMessage[] }> {
    store = await openMemoryStore();
    const clock = new FakeClock(T0);
    const bus = new Bus(() => undefined);
    const published: BusMessage[] = [];
    bus.subscribe((m) => void published.push(m));
    const scanner = new SilenceScanner(store, bus, clock, silentLogger, async () => CORRELATION);
    jobs = new FakeClockJobs(store, clock, [{ name: 'host_silence', intervalMs: MINUTE, run: (fence) => scanner.scan(fence) }]);
    await ingestNow(store, clock, [agentLifecycleEvent(WS01, 'agent.heartbeat', '1.0.0')]);
    return { clock, published };
  }

  const silences = () => store.problems.list({ statuses: ['open'], rule: 'host_silence', hidden: [], limit: 10 });

  it('turns a host stale and opens host_silence at the first scan after its stale minutes, not before', async () => {
    const { clock, published } = await start();
    // Ten scans, the last exactly ten minutes after the heartbeat: still online.
    expect(await jobs.advance(CORRELATION.staleMinutes * MINUTE)).toBe(CORRELATION.staleMinutes);
    expect(await silences()).toEqual([]);
    expect(published.filter((m) => m.type === 'host.status_changed')).toEqual([]);

    expect(await jobs.advance(MINUTE)).toBe(1);
    const [silence] = await silences();
    expect(silence).toMatchObject({ hostname: 'WS01', title: 'No heartbeat from WS01 for 11 min', created_ms: T0 + 11 * MINUTE });
    expect(published.filter((m) => m.type === 'host.status_changed').map((m) => m.data)).toEqual([expect.objectContaining({ hostname: 'WS01', status: 'stale' })]);

    // Later scans keep the one problem; a heartbeat resolves it.
    await jobs.advance(5 * MINUTE);
    expect(await silences()).toHaveLength(1);
    await ingestNow(store, clock, [agentLifecycleEvent(WS01, 'agent.heartbeat', '1.0.0')]);
    expect(await silences()).toEqual([]);
  });
});
