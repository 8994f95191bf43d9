import { eventIp, PROBLEM_FACTS_TOP, SEVERITIES, type ProblemFactCount, type ProblemFacts, type Severity } from '../../../shared/src/index.js';
import type { Problem, ProblemAssignment, ProblemMatchInput, ProblemTransition, SilenceInput } from './problems.types.js';

/**
 * How a problem changes: the "next record" rules both adapters apply, so the stores differ only
 * in how they read and write atomically, never in what they write.
 */

export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s);

export const ACTIVE_PROBLEM_STATUSES: readonly Problem['status'][] = ['open', 'acknowledged'];

/** True when an active problem's span lies within the input's window: the input joins it. */
export function joinsProblem(p: Pick<Problem, 'first_seen_ms' | 'last_seen_ms'>, input: ProblemMatchInput): boolean {
  return p.first_seen_ms <= input.last_ms + input.window_ms && p.last_seen_ms >= input.first_ms - input.window_ms;
}

/** Of the candidates the input joins, the most recently seen one (the one it is added to); -1 when none. */
export function matchIndex(candidates: readonly Pick<Problem, 'first_seen_ms' | 'last_seen_ms'>[], input: ProblemMatchInput): number {
  let best = -1;
  candidates.forEach((p, i) => {
    if (joinsProblem(p, input) && (best < 0 || p.last_seen_ms > candidates[best].last_seen_ms)) best = i;
  });
  return best;
}

/** The problem grown by a matched input: counted events added, span widened, severity the highest. */
export function grownProblem<P extends Problem>(match: P, input: ProblemMatchInput): P {
  return {
    ...match,
    count: match.count + input.count,
    first_seen_ms: Math.min(match.first_seen_ms, input.first_ms),
    last_seen_ms: Math.max(match.last_seen_ms, input.last_ms),
    severity: severityRank(input.severity) > severityRank(match.severity) ? input.severity : match.severity,
    updated_ms: input.now_ms,
  };
}

const UNHANDLED = {
  status: 'open',
  acknowledged_by: null,
  acknowledged_ms: null,
  resolved_by: null,
  resolved_by_user: null,
  resolved_ms: null,
} as const;

const UNASSIGNED = { assignee_id: null, assignee: null, assigned_ms: null } as const;

/** The problem an unmatched input opens; null when none of its events counts (replays only). */
export function openedProblem(input: ProblemMatchInput, id: string): Problem | null {
  if (input.count === 0) return null;
  return {
    id,
    key: input.key,
    fingerprint: input.fingerprint,
    host_id: input.host_id,
    hostname: input.hostname,
    type: input.type,
    rule: input.rule,
    severity: input.severity,
    title: input.title,
    ...UNHANDLED,
    first_seen_ms: input.first_ms,
    last_seen_ms: input.last_ms,
    count: input.count,
    created_ms: input.now_ms,
    updated_ms: input.now_ms,
    ...UNASSIGNED,
    comments: [],
  };
}

/** A host's silence problem: always high, counted once per silence. */
export function silenceProblem(input: SilenceInput, id: string): Problem {
  return {
    id,
    key: input.key,
    fingerprint: input.fingerprint,
    host_id: input.host_id,
    hostname: input.hostname,
    type: 'host.silence',
    rule: 'host_silence',
    severity: 'high',
    title: input.title,
    ...UNHANDLED,
    first_seen_ms: input.now_ms,
    last_seen_ms: input.now_ms,
    count: 1,
    created_ms: input.now_ms,
    updated_ms: input.now_ms,
    ...UNASSIGNED,
    comments: [],
  };
}

/** A resolved silence problem opened again: one more silence, handling cleared. */
export function reopenedSilence(p: Problem, nowMs: number, title: string): Problem {
  return { ...p, ...UNHANDLED, count: p.count + 1, last_seen_ms: nowMs, updated_ms: nowMs, title };
}

/** The problem with a new assignee (null: unassigned). */
export function assignedProblem(p: Problem, change: ProblemAssignment): Problem {
  return {
    ...p,
    assignee_id: change.assignee_id,
    assignee: change.assignee,
    assigned_ms: change.assignee_id === null ? null : change.now_ms,
    updated_ms: change.now_ms,
  };
}

/** Whether an assignment's compare-and-set guard holds for the problem as stored. */
export const assignmentApplies = (p: Problem, change: ProblemAssignment): boolean =>
  change.expected_id === undefined || (p.assignee_id ?? null) === change.expected_id;

/** The problem after a state transition (acknowledge, resolve, reopen) with its comment appended. */
export function transitionedProblem(p: Problem, change: ProblemTransition): Problem {
  const next: Problem = { ...p, status: change.status, updated_ms: change.now_ms };
  if (change.acknowledged_by !== undefined) Object.assign(next, { acknowledged_by: change.acknowledged_by, acknowledged_ms: change.now_ms });
  if (change.resolved_by !== undefined) {
    Object.assign(next, { resolved_by: change.resolved_by, resolved_by_user: change.resolved_by_user ?? null, resolved_ms: change.now_ms });
  }
  // Reopened: it starts over as open, so the earlier acknowledgement and resolution no longer hold.
  if (change.reopen) Object.assign(next, UNHANDLED, { status: change.status });
  if (change.comment) next.comments = [...p.comments, change.comment];
  return next;
}

/** A group of a problem's counted events alike in what its facts name: `n` events. */
export interface ProblemFactRow {
  actor_user: string | null;
  hostname: string | null;
  /** The event's `details` fields that `eventIp` reads. */
  details: Record<string, unknown>;
  n: number;
}

function top(counts: Map<string, number>): ProblemFactCount[] {
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, PROBLEM_FACTS_TOP);
}

/** A problem's facts from its events' groups: exact counts, the most frequent values kept. */
export function problemFacts(rows: Iterable<ProblemFactRow>): ProblemFacts {
  const addresses = new Map<string, number>();
  const users = new Map<string, number>();
  const hosts = new Map<string, number>();
  const add = (m: Map<string, number>, v: string | null, n: number) => {
    if (v) m.set(v, (m.get(v) ?? 0) + n);
  };
  for (const r of rows) {
    add(addresses, eventIp(r.details), r.n);
    add(users, r.actor_user, r.n);
    add(hosts, r.hostname, r.n);
  }
  return { addresses: top(addresses), users: top(users), hosts: top(hosts) };
}
