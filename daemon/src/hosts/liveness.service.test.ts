import { describe, expect, it } from 'vitest';
import { agentLifecycleEvent } from '../../../test/helpers/events.js';
import { CORRELATION, ingestNow, serviceBed, silentLogger } from '../../../test/helpers/services.js';
import { Facts, type DomainFact } from '../facts.js';
import { SilenceScanner } from './liveness.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MINUTE = 60_000;
const heartbeat = agentLifecycleEvent({ hostname: 'WS01', os_family: 'windows', product: 'rdp-login-monitor' }, 'agent.heartbeat', '1.0.0');

describe('host silence, the host_silence job on a fake clock', () => {
  const bed = serviceBed(T0);

  it('turns a host stale and opens host_silence at the first scan after its stale minutes, not before', async () => {
    const { store, clock, startJobs } = await bed.start();
    const facts = new Facts(() => undefined);
    const published: DomainFact[] = [];
    facts.subscribe((batch) => void published.push(...batch));
    const scanner = new SilenceScanner(store, facts, clock, silentLogger, async () => CORRELATION);
    const jobs = startJobs([{ name: 'host_silence', intervalMs: MINUTE, run: (fence) => scanner.scan(fence) }]);
    await ingestNow(store, clock, [heartbeat]);
    const silences = () => store.problems.list({ statuses: ['open'], rule: 'host_silence', hidden: [], limit: 10 });

    // Ten scans, the last exactly ten minutes after the heartbeat: still online.
    expect(await jobs.advance(CORRELATION.staleMinutes * MINUTE)).toBe(CORRELATION.staleMinutes);
    expect(await silences()).toEqual([]);
    expect(published.filter((m) => m.type === 'host.status_changed')).toEqual([]);

    expect(await jobs.advance(MINUTE)).toBe(1);
    const [silence] = await silences();
    expect(silence).toMatchObject({ hostname: 'WS01', title: 'No heartbeat from WS01 for 11 min', created_ms: T0 + 11 * MINUTE });
    expect(published.filter((m) => m.type === 'host.status_changed')).toEqual([expect.objectContaining({ hostname: 'WS01', status: 'stale' })]);

    // Later scans keep the one problem; a heartbeat resolves it.
    await jobs.advance(5 * MINUTE);
    expect(await silences()).toHaveLength(1);
    await ingestNow(store, clock, [heartbeat]);
    expect(await silences()).toEqual([]);
  });
});
