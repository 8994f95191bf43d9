import type { RolloutCounts, RolloutHealth, RolloutHostState, RolloutView } from '../../../shared/src/index.js';
import type { AgentPinRecord, AgentUpdateJob, Host, RolloutHostRecord, RolloutRecord, RolloutRingRecord } from '../store/index.js';
import { compareAgentVersions } from '../updates/index.js';

/*
 * The ring and health rules of a staged rollout, pure: how hosts fall into rings, how a host's
 * update job and reports move it, and what the gate decides when a ring is done.
 */

/** How the hosts of a rollout fall into rings: the canary first, then the rest by cumulative percentage, by host name. */
export function assignRings(
  canary: readonly string[],
  waves: readonly { percent: number; soak_minutes: number }[],
  canarySoakMinutes: number,
  hosts: readonly Pick<Host, 'id' | 'hostname'>[],
): RolloutRingRecord[] {
  const waiting = (h: Pick<Host, 'id' | 'hostname'>): RolloutHostRecord => ({ host_id: h.id, hostname: h.hostname, state: 'waiting', reason: null, job_id: null, job_ms: null });
  const ring = (index: number, kind: 'canary' | 'wave', percent: number | null, soak: number, members: Pick<Host, 'id' | 'hostname'>[]): RolloutRingRecord => ({
    index,
    kind,
    percent,
    soak_minutes: soak,
    state: 'waiting',
    started_ms: null,
    finished_ms: null,
    hosts: members.map(waiting),
  });
  const inCanary = new Set(canary);
  const first = hosts.filter((h) => inCanary.has(h.id));
  const rest = hosts.filter((h) => !inCanary.has(h.id)).sort((a, b) => a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id));
  const rings: RolloutRingRecord[] = first.length > 0 ? [ring(0, 'canary', null, canarySoakMinutes, first)] : [];
  let taken = 0;
  for (const w of waves) {
    const upTo = Math.ceil((rest.length * w.percent) / 100);
    rings.push(ring(rings.length, 'wave', w.percent, w.soak_minutes, rest.slice(taken, upTo)));
    taken = upTo;
  }
  return rings;
}

/** The lowest version any pin of the host (its own, or one of its groups') allows; null when none applies. */
export function pinnedMax(pins: readonly Pick<AgentPinRecord, 'max_version' | 'group_id' | 'host_id'>[], hostId: string, groupIds: ReadonlySet<string>): string | null {
  let max: string | null = null;
  for (const p of pins) {
    if (p.host_id !== hostId && !(p.group_id !== null && groupIds.has(p.group_id))) continue;
    if (max === null || (compareAgentVersions(p.max_version, max) ?? 0) < 0) max = p.max_version;
  }
  return max;
}

/** Whether a pin at `max` forbids moving to `target` (a version beyond it). */
export function pinForbids(max: string | null, target: string): boolean {
  return max !== null && (compareAgentVersions(target, max) ?? 1) > 0;
}

/** A ring's host at its start: skipped when a pin forbids the target or it runs the target already, else to update. */
export function classifyHost(host: Pick<Host, 'agent_version'>, target: string, pin: string | null): { state: 'skipped'; reason: 'pinned' | 'up_to_date' } | { state: 'updating' } {
  if (pinForbids(pin, target)) return { state: 'skipped', reason: 'pinned' };
  if (host.agent_version === target) return { state: 'skipped', reason: 'up_to_date' };
  return { state: 'updating' };
}

/**
 * When a job started, for the heartbeat window: when a poll handed it to the agent, or when it left
 * `pending` otherwise (the agent's `started`, SAC's push); null while it waits its turn
 * (`max_parallel`), which no window counts against.
 */
export function jobStartMs(job: Pick<AgentUpdateJob, 'state' | 'offered_ms' | 'updated_ms'>): number | null {
  return job.offered_ms ?? (job.state === 'pending' ? null : job.updated_ms);
}

/**
 * A host under update after its job's and its own news: `updated` once the job succeeded and the
 * host reports the target with a heartbeat since the job was created; `failed` when the job failed
 * or no such report came within `heartbeat_minutes` of the job's start (`jobStartMs`).
 */
export function hostProgress(
  h: RolloutHostRecord,
  job: Pick<AgentUpdateJob, 'state' | 'output' | 'offered_ms' | 'updated_ms'> | null,
  host: Pick<Host, 'agent_version' | 'last_seen_ms'> | null,
  target: string,
  health: RolloutHealth,
  nowMs: number,
): RolloutHostRecord {
  if (h.state !== 'updating' || h.job_ms === null) return h;
  if (!host) return { ...h, state: 'failed', reason: 'the host was deleted' };
  if (job?.state === 'failed') return { ...h, state: 'failed', reason: (job.output ?? '').split('\n')[0].slice(0, 300) || 'the update failed' };
  if (job?.state === 'success' && host.agent_version === target && host.last_seen_ms >= h.job_ms) return { ...h, state: 'updated', reason: null };
  const startMs = job ? jobStartMs(job) : h.job_ms;
  if (startMs !== null && nowMs >= startMs + health.heartbeat_minutes * 60_000) {
    return { ...h, state: 'failed', reason: `no heartbeat reporting ${target} within ${health.heartbeat_minutes} minutes (reports ${host.agent_version})` };
  }
  return h;
}

const DONE: readonly RolloutHostState[] = ['updated', 'failed', 'skipped', 'rolled_back'];

export function countHosts(rings: readonly RolloutRingRecord[]): RolloutCounts {
  const counts: RolloutCounts = { hosts: 0, waiting: 0, updating: 0, updated: 0, failed: 0, skipped: 0, rolled_back: 0 };
  for (const ring of rings) {
    for (const h of ring.hosts) {
      counts.hosts++;
      counts[h.state]++;
    }
  }
  return counts;
}

const ringName = (ring: Pick<RolloutRingRecord, 'kind' | 'index' | 'percent'>) => (ring.kind === 'canary' ? 'The canary ring' : `Wave ${ring.index} (${ring.percent} %)`);
const percentOf = (part: number, whole: number) => (whole === 0 ? 0 : (part * 100) / whole);

/** Why the gate halts after `ring`: the failed share of the hosts updated so far, and which hosts failed. */
function haltReason(ring: RolloutRingRecord, failed: RolloutHostRecord[], judged: number, health: RolloutHealth): string {
  const names = failed.slice(0, 10).map((h) => `${h.hostname}${h.reason ? ` (${h.reason})` : ''}`);
  const more = failed.length > 10 ? ` and ${failed.length - 10} more` : '';
  const share = Math.round(percentOf(failed.length, judged));
  return `${ringName(ring)}: ${failed.length} of ${judged} updated hosts failed (${share} % > ${health.max_failure_percent} %): ${names.join('; ')}${more}`.slice(0, 2000);
}

export type RolloutStep = { record: RolloutRecord; start: number | null };

/**
 * One step of the rollout's state machine over fresh facts (its hosts' jobs and reports): hosts move,
 * then — while running — the current ring completes when every host is done, the gate halts the
 * rollout when the failed share of the hosts updated so far exceeds `max_failure_percent` (at once,
 * when it must whatever the rest of the ring does), a finished ring soaks, and a passed ring starts
 * the next (`start`: the ring the caller must start) or completes the rollout.
 */
export function step(
  r: RolloutRecord,
  facts: { job(id: string): Pick<AgentUpdateJob, 'state' | 'output' | 'offered_ms' | 'updated_ms'> | null; host(id: string): Pick<Host, 'agent_version' | 'last_seen_ms'> | null },
  nowMs: number,
): RolloutStep {
  const rings = r.rings.map((ring) => ({
    ...ring,
    hosts: ring.hosts.map((h) => (h.job_id === null ? h : hostProgress(h, facts.job(h.job_id), facts.host(h.host_id), r.target_version, r.health, nowMs))),
  }));
  const next: RolloutRecord = { ...r, rings };
  if (r.state !== 'running') return { record: next, start: null };
  const ring = rings[r.current_ring];
  if (!ring) return { record: { ...next, state: 'completed', finished_ms: nowMs }, start: null };
  if (ring.state === 'waiting') return { record: next, start: ring.index };
  if (ring.state === 'updating') {
    const upTo = rings.slice(0, ring.index + 1).flatMap((x) => x.hosts);
    const failed = upTo.filter((h) => h.state === 'failed');
    const finished = upTo.filter((h) => h.state === 'updated' || h.state === 'failed' || h.state === 'rolled_back').length;
    const ringDone = ring.hosts.every((h) => DONE.includes(h.state));
    // Judged: the hosts updated (or failed) so far; while the ring runs, at most all of its hosts still to finish.
    const judged = ringDone ? finished : finished + ring.hosts.filter((h) => h.state === 'updating').length;
    if (failed.length > 0 && percentOf(failed.length, judged) > r.health.max_failure_percent) {
      rings[ring.index] = { ...ring, state: 'failed', finished_ms: nowMs };
      return { record: { ...next, state: 'halted', halt_reason: haltReason(ring, failed, judged, r.health) }, start: null };
    }
    if (!ringDone) return { record: next, start: null };
    rings[ring.index] = { ...ring, state: 'soaking', finished_ms: nowMs };
    return step({ ...next, rings }, facts, nowMs);
  }
  if (ring.state === 'soaking' && ring.finished_ms !== null && nowMs >= ring.finished_ms + ring.soak_minutes * 60_000) {
    rings[ring.index] = { ...ring, state: 'passed' };
    if (ring.index === rings.length - 1) return { record: { ...next, state: 'completed', finished_ms: nowMs }, start: null };
    return { record: { ...next, current_ring: ring.index + 1 }, start: ring.index + 1 };
  }
  return { record: next, start: null };
}

/** Whether two records differ in anything a reader sees (the `rev` and `updated_ms` aside). */
export function differs(a: RolloutRecord, b: RolloutRecord): boolean {
  const strip = ({ rev: _rev, updated_ms: _u, ...rest }: RolloutRecord) => rest;
  return JSON.stringify(strip(a)) !== JSON.stringify(strip(b));
}

export function rolloutView(r: RolloutRecord, versions: ReadonlyMap<string, string>): RolloutView {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: r.id,
    product: r.product,
    target_version: r.target_version,
    previous_version: r.previous_version,
    from: r.from,
    health: r.health,
    rings: r.rings.map((ring) => ({
      index: ring.index,
      kind: ring.kind,
      ...(ring.percent === null ? {} : { percent: ring.percent }),
      soak_minutes: ring.soak_minutes,
      state: ring.state,
      started_at: iso(ring.started_ms),
      finished_at: iso(ring.finished_ms),
      hosts: ring.hosts.map((h) => ({ host_id: h.host_id, hostname: h.hostname, state: h.state, reason: h.reason, version: versions.get(h.host_id) ?? '', job_id: h.job_id })),
    })),
    state: r.state,
    current_ring: r.current_ring,
    halt_reason: r.halt_reason,
    counts: countHosts(r.rings),
    created_by: r.created_by,
    approved_by: r.approved_by,
    created_at: iso(r.created_ms)!,
    updated_at: iso(r.updated_ms)!,
    finished_at: iso(r.finished_ms),
  };
}

/** Every host id of a rollout. */
export function rolloutHostIds(r: Pick<RolloutRecord, 'rings'>): string[] {
  return r.rings.flatMap((ring) => ring.hosts.map((h) => h.host_id));
}
