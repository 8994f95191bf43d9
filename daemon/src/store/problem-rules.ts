import { SEVERITIES, type Severity } from '../../../shared/src/index.js';
import type { Problem, ProblemMatchInput, ProblemTransition, SilenceInput } from './problems.types.js';

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
    comments: [],
  };
}

/** A resolved silence problem opened again: one more silence, handling cleared. */
export function reopenedSilence(p: Problem, nowMs: number, title: string): Problem {
  return { ...p, ...UNHANDLED, count: p.count + 1, last_seen_ms: nowMs, updated_ms: nowMs, title };
}

/** The problem after a state transition (acknowledge, resolve, reopen) with its comment appended. */
export function transitionedProblem(p: Problem, change: ProblemTransition): Problem {
  const next: Problem = { ...p, status: change.status, updated_ms: change.now_ms };
  if (change.acknowledged_by !== undefined) Object.assign(next, { acknowledged_by: change.acknowledged_by, acknowledged_ms: change.now_ms });
  if (change.resolved_by !== undefined) {
    Object.assign(next, { resolved_by: change.resolved_by, resolved_by_user: change.resolved_by_user ?? null, resolved_ms: change.now_ms });
  }
  if (change.comment) next.comments = [...p.comments, change.comment];
  return next;
}
