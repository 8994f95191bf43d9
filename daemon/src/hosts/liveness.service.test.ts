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

describe('mass silence, the host_silence job on a fake clock', () => {
  const bed = serviceBed(T0);
  const hb = (i: number) => agentLifecycleEvent({ hostname: `WS${String(i).padStart(2, '0')}`, os_family: 'windows', product: 'rdp-login-monitor' }, 'agent.heartbeat', '1.0.0');
  const fleet = Array.from({ length: 50 }, (_, i) => hb(i));

  async function setUp() {
    const { store, clock, startJobs } = await bed.start();
    const facts = new Facts(() => undefined);
    const scanner = new SilenceScanner(store, facts, clock, silentLogger, async () => CORRELATION);
    const jobs = startJobs([{ name: 'host_silence', intervalMs: MINUTE, run: (fence) => scanner.scan(fence) }]);
    await ingestNow(store, clock, fleet);
    const active = (rule: string) => store.problems.list({ statuses: ['open'], rule, hidden: [], limit: 100 });
    /** Moves on `minutes` five at a time, the hosts in `alive` sending a heartbeat every five minutes. */
    const run = async (minutes: number, alive: typeof fleet) => {
      for (let m = 0; m < minutes; m += 5) {
        await jobs.advance(5 * MINUTE);
        await ingestNow(store, clock, alive);
      }
    };
    return { store, clock, active, run };
  }

  it('40 of 50 hosts going silent together open one mass_silence problem, not 40; their own follow after the grace; resolved when they return', async () => {
    const { store, clock, active, run } = await setUp();
    const alive = fleet.slice(40);
    await run(15, alive);
    const [mass, ...more] = await active('mass_silence');
    expect(more).toEqual([]);
    expect(mass).toMatchObject({ type: 'host.silence', severity: 'high', count: 40 });
    expect(mass.title).toMatch(/^40 of 50 hosts went silent together: WS00, WS01, .* and 30 more$/);
    // Its evidence: the 40 hosts with their last sign of life, and their share of the fleet.
    const evidence = await store.problems.evidence(mass.id);
    expect(evidence).toMatchObject({ kind: 'mass_silence', share_percent: 80 });
    if (evidence?.kind !== 'mass_silence') throw new Error('no mass_silence evidence');
    expect(evidence.hosts.map((h) => h.hostname).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `WS${String(i).padStart(2, '0')}`));
    expect(new Set(evidence.hosts.map((h) => h.last_seen))).toEqual(new Set([new Date(T0).toISOString()]));
    expect(await active('host_silence')).toEqual([]);

    // Silent past the grace (15 min after turning stale): each host's own problem follows.
    await run(15, alive);
    expect(await active('host_silence')).toHaveLength(40);
    expect(await active('mass_silence')).toHaveLength(1);

    await ingestNow(store, clock, fleet);
    await run(5, fleet);
    expect(await active('mass_silence')).toEqual([]);
    expect(await active('host_silence')).toEqual([]);
    expect((await store.problems.byId(mass.id))?.resolved_by).toBe('auto');
  });

  it('a few hosts going silent (not more than the share) each get their own host_silence', async () => {
    const { active, run } = await setUp();
    await run(15, fleet.slice(3));
    expect(await active('mass_silence')).toEqual([]);
    expect(await active('host_silence')).toHaveLength(3);
  });
});
