import { describe, expect, it } from 'vitest';
import type { RolloutHostRecord, RolloutRecord } from '../store/index.js';
import { assignRings, classifyHost, hostProgress, pinnedMax, step } from './rollouts.rules.js';

const MIN = 60_000;
const HEALTH = { heartbeat_minutes: 30, max_failure_percent: 0 };
const hosts = (...names: string[]) => names.map((n) => ({ id: n.toLowerCase(), hostname: n }));

function rollout(over: Partial<RolloutRecord> = {}): RolloutRecord {
  return {
    id: 'r1',
    product: 'rdp-login-monitor',
    target_version: '2.1.8-SAC',
    target_commit: 'c',
    previous_version: '2.1.7-SAC',
    from: { all_outdated: true },
    health: HEALTH,
    rings: assignRings(['a'], [{ percent: 50, soak_minutes: 10 }, { percent: 100, soak_minutes: 0 }], 5, hosts('A', 'B', 'C', 'D', 'E')),
    state: 'running',
    current_ring: 0,
    halt_reason: null,
    created_by: 'admin',
    approved_by: null,
    created_ms: 0,
    updated_ms: 0,
    finished_ms: null,
    rev: 0,
    ...over,
  };
}

/** The rollout with ring `index` started: its hosts updating with jobs `job-<id>` created at `atMs`. */
function started(r: RolloutRecord, index: number, atMs = 0): RolloutRecord {
  const rings = r.rings.map((ring) =>
    ring.index === index
      ? { ...ring, state: 'updating' as const, started_ms: atMs, hosts: ring.hosts.map((h) => ({ ...h, state: 'updating' as const, job_id: `job-${h.host_id}`, job_ms: atMs })) }
      : ring,
  );
  return { ...r, rings, current_ring: index };
}

const facts = (jobs: Record<string, 'pending' | 'success' | 'failed'>, versions: Record<string, string>, seenMs = 1) => ({
  job: (id: string) => (jobs[id.slice(4)] ? { state: jobs[id.slice(4)], output: jobs[id.slice(4)] === 'failed' ? 'installer exited with 1603\nmore' : null, offered_ms: null, updated_ms: 0 } : null),
  host: (id: string) => ({ agent_version: versions[id] ?? '2.1.7-SAC', last_seen_ms: seenMs }),
});

describe('rollout rings', () => {
  it('puts the canary first, then the rest by host name in cumulative percentages', () => {
    const rings = assignRings(['c'], [{ percent: 25, soak_minutes: 5 }, { percent: 50, soak_minutes: 5 }, { percent: 100, soak_minutes: 0 }], 10, hosts('E', 'C', 'A', 'D', 'B', 'F'));
    expect(rings.map((r) => [r.kind, r.percent, r.soak_minutes, r.hosts.map((h) => h.hostname)])).toEqual([
      ['canary', null, 10, ['C']],
      ['wave', 25, 5, ['A', 'B']],
      ['wave', 50, 5, ['D']],
      ['wave', 100, 0, ['E', 'F']],
    ]);
    expect(assignRings([], [{ percent: 100, soak_minutes: 0 }], 0, hosts('A')).map((r) => r.kind)).toEqual(['wave']);
  });

  it('skips a host pinned below the target, or already on it', () => {
    const pins = [
      { max_version: '2.1.8-SAC', group_id: 'g1', host_id: null },
      { max_version: '2.1.7-SAC', group_id: null, host_id: 'h1' },
    ];
    expect(pinnedMax(pins, 'h1', new Set(['g1']))).toBe('2.1.7-SAC');
    expect(pinnedMax(pins, 'h2', new Set(['g1']))).toBe('2.1.8-SAC');
    expect(pinnedMax(pins, 'h2', new Set())).toBeNull();
    expect(classifyHost({ agent_version: '2.1.6-SAC' }, '2.1.8-SAC', '2.1.7-SAC')).toEqual({ state: 'skipped', reason: 'pinned' });
    expect(classifyHost({ agent_version: '2.1.6-SAC' }, '2.1.8-SAC', '2.1.8-SAC')).toEqual({ state: 'updating' });
    expect(classifyHost({ agent_version: '2.1.8-SAC' }, '2.1.8-SAC', null)).toEqual({ state: 'skipped', reason: 'up_to_date' });
  });
});

describe('rollout host health', () => {
  const updating: RolloutHostRecord = { host_id: 'a', hostname: 'A', state: 'updating', reason: null, job_id: 'job-a', job_ms: 1000 };

  it('is updated only when the job succeeded and the host reported the target since the job started', () => {
    expect(hostProgress(updating, { state: 'success', output: null, offered_ms: 1000, updated_ms: 1500 }, { agent_version: '2.1.8-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 2000).state).toBe('updated');
    expect(hostProgress(updating, { state: 'success', output: null, offered_ms: 1000, updated_ms: 1500 }, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 2000).state).toBe('updating');
    expect(hostProgress(updating, { state: 'success', output: null, offered_ms: 1000, updated_ms: 1500 }, { agent_version: '2.1.8-SAC', last_seen_ms: 500 }, '2.1.8-SAC', HEALTH, 2000).state).toBe('updating');
  });

  it('fails with the job, or when no heartbeat with the target came within heartbeat_minutes', () => {
    expect(hostProgress(updating, { state: 'failed', output: 'exit 1603\ntrace', offered_ms: 1000, updated_ms: 1500 }, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 2000)).toMatchObject({ state: 'failed', reason: 'exit 1603' });
    const offered = { state: 'started' as const, output: null, offered_ms: 5000, updated_ms: 6000 };
    const late = hostProgress(updating, offered, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 5000 + 30 * MIN);
    expect(late).toMatchObject({ state: 'failed', reason: 'no heartbeat reporting 2.1.8-SAC within 30 minutes (reports 2.1.7-SAC)' });
    expect(hostProgress(updating, offered, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 5000 + 30 * MIN - 1).state).toBe('updating');
    // The window starts when the job is handed out or pushed, not while it waits its turn.
    const waiting = { state: 'pending' as const, output: null, offered_ms: null, updated_ms: 1000 };
    expect(hostProgress(updating, waiting, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 1000 + 300 * MIN).state).toBe('updating');
    const pushed = { state: 'fallback' as const, output: null, offered_ms: null, updated_ms: 9000 };
    expect(hostProgress(updating, pushed, { agent_version: '2.1.7-SAC', last_seen_ms: 2000 }, '2.1.8-SAC', HEALTH, 9000 + 30 * MIN).state).toBe('failed');
    expect(hostProgress(updating, null, null, '2.1.8-SAC', HEALTH, 2000)).toMatchObject({ state: 'failed', reason: 'the host was deleted' });
  });
});

describe('rollout gate', () => {
  it('asks for the first ring to start, soaks a finished ring, then starts the next', () => {
    expect(step(rollout(), facts({}, {}), 0).start).toBe(0);
    const r = started(rollout(), 0);
    const soaking = step(r, facts({ a: 'success' }, { a: '2.1.8-SAC' }), 100).record;
    expect([soaking.rings[0].state, soaking.rings[0].finished_ms, soaking.current_ring]).toEqual(['soaking', 100, 0]);
    expect(step(soaking, facts({ a: 'success' }, { a: '2.1.8-SAC' }), 100 + 5 * MIN - 1).start).toBeNull();
    const next = step(soaking, facts({ a: 'success' }, { a: '2.1.8-SAC' }), 100 + 5 * MIN);
    expect([next.start, next.record.current_ring, next.record.rings[0].state]).toEqual([1, 1, 'passed']);
  });

  it('halts at once when a canary host fails, naming it and the failure', () => {
    const halted = step(started(rollout(), 0), facts({ a: 'failed' }, {}), 100).record;
    expect(halted.state).toBe('halted');
    expect(halted.rings[0].state).toBe('failed');
    expect(halted.halt_reason).toBe('The canary ring: 1 of 1 updated hosts failed (100 % > 0 %): A (installer exited with 1603)');
  });

  it('lets failures under max_failure_percent pass, judged on the whole ring, and halts when the share goes over', () => {
    const tolerant = { ...HEALTH, max_failure_percent: 40 };
    // Wave 1 holds B and C after canary A updated: one of the three judged fails (33 %) — under 40 %.
    let r = started({ ...rollout({ health: tolerant }), rings: rollout().rings.map((ring) => (ring.index === 0 ? { ...ring, state: 'passed' as const, hosts: ring.hosts.map((h) => ({ ...h, state: 'updated' as const })) } : ring)) }, 1);
    const early = step(r, facts({ b: 'failed' }, {}), 100).record;
    // C still updating: 1 of at most 3 failed, not yet over.
    expect([early.state, early.rings[1].state]).toEqual(['running', 'updating']);
    r = step(r, facts({ b: 'failed', c: 'success' }, { c: '2.1.8-SAC' }), 100).record;
    expect([r.state, r.rings[1].state]).toEqual(['running', 'soaking']);
    // Both failing: 2 of 3 (67 %) — halted.
    const bad = step(started({ ...rollout({ health: tolerant }), rings: r.rings.map((ring) => (ring.index === 1 ? { ...ring, state: 'waiting' as const } : ring)) }, 1), facts({ b: 'failed', c: 'failed' }, {}), 100).record;
    expect(bad.state).toBe('halted');
    expect(bad.halt_reason).toContain('Wave 1 (50 %): 2 of 3 updated hosts failed (67 % > 40 %)');
  });

  it('passes a ring whose hosts were all skipped, and completes after the last ring', () => {
    const skipped = rollout({
      rings: rollout().rings.map((ring) => ({ ...ring, state: ring.index < 2 ? ('passed' as const) : ('updating' as const), hosts: ring.hosts.map((h) => ({ ...h, state: 'skipped' as const, reason: 'pinned' })) })),
      current_ring: 2,
    });
    const done = step(skipped, facts({}, {}), 100);
    expect([done.record.state, done.record.finished_ms, done.start]).toEqual(['completed', 100, null]);
  });

  it('moves hosts but no ring while paused', () => {
    const paused = step({ ...started(rollout(), 0), state: 'paused' }, facts({ a: 'success' }, { a: '2.1.8-SAC' }), 100);
    expect([paused.record.rings[0].hosts[0].state, paused.record.rings[0].state, paused.start]).toEqual(['updated', 'updating', null]);
  });
});
