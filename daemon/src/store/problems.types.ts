import type { ProblemEvidence, ProblemFacts, ProblemSortKey, Severity } from '../../../shared/src/index.js';
export type { ProblemSortKey };

/** Problem statuses: `open` → `acknowledged` → `resolved` (or `open` → `resolved`). */
export type ProblemStatusValue = 'open' | 'acknowledged' | 'resolved';

export interface ProblemComment {
  at_ms: number;
  by: string;
  action: 'acknowledge' | 'resolve' | 'reopen';
  text: string;
}

/** A correlated problem: one per correlation key and time window. */
export interface Problem {
  id: string;
  /** Correlation key: host + type + rule (+ the rule's discriminator). */
  key: string;
  /** Stable hash of the key. */
  fingerprint: string;
  host_id: string;
  hostname: string;
  type: string;
  rule: string;
  severity: Severity;
  title: string;
  status: ProblemStatusValue;
  /** Occurred time of the earliest and latest counted events. */
  first_seen_ms: number;
  last_seen_ms: number;
  /** Counted events (replays are linked but not counted). */
  count: number;
  created_ms: number;
  updated_ms: number;
  acknowledged_by: string | null;
  acknowledged_ms: number | null;
  resolved_by: 'manual' | 'auto' | null;
  /** The user who resolved it by hand. */
  resolved_by_user: string | null;
  resolved_ms: number | null;
  /** The console user the problem is assigned to (id and the username shown), or null. */
  assignee_id: string | null;
  assignee: string | null;
  assigned_ms: number | null;
  comments: ProblemComment[];
}

/** An event on a problem's timeline. */
export interface ProblemLink {
  event_id: string;
  occurred_ms: number;
  /** False for replays (content equal to an already counted event). */
  counted: boolean;
}

/** A group of events of one correlation key, at most one window apart, to be matched into one problem. */
export interface ProblemMatchInput {
  key: string;
  fingerprint: string;
  rule: string;
  type: string;
  host_id: string;
  hostname: string;
  /** Title for a new problem (an existing problem keeps its own). */
  title: string;
  severity: Severity;
  window_ms: number;
  /** Occurred span of the group's events. */
  first_ms: number;
  last_ms: number;
  /** How many of the events count (non-replays). With 0 no problem is created, only an existing one linked. */
  count: number;
  now_ms: number;
  links: ProblemLink[];
  /** Why the rule opened it (login intelligence), stored when the input opens a new problem. */
  evidence?: ProblemEvidence;
}

export interface ProblemQuery {
  statuses?: ProblemStatusValue[];
  host_ids?: string[];
  type_prefix?: string;
  /** Text in the rule's name (`flap` finds `rdg_flap`). */
  rule?: string;
  severities?: Severity[];
  /** Problems whose occurred span overlaps [from_ms, to_ms). */
  from_ms?: number;
  to_ms?: number;
  /** A user id, or null for unassigned problems. */
  assignee_id?: string | null;
  /** Problems of these types (exact or prefix patterns) are left out. */
  hidden: string[];
  limit: number;
  /** Sort key and direction (default last_seen desc); the problem id breaks ties in the same direction. */
  sort?: ProblemSortKey;
  dir?: 'asc' | 'desc';
  /** Keyset: strictly after this (sort value, id) position in the list's order. */
  after?: { value: number | string; id: string };
}


/** The fields a state transition writes. */
export interface ProblemTransition {
  status: ProblemStatusValue;
  now_ms: number;
  acknowledged_by?: string;
  resolved_by?: 'manual' | 'auto';
  resolved_by_user?: string | null;
  /** Reopen: clears the acknowledgement and resolution fields. */
  reopen?: true;
  comment?: ProblemComment;
}

/** A change of assignee: `expected_id` guards against a concurrent change (compare-and-set). */
export interface ProblemAssignment {
  assignee_id: string | null;
  assignee: string | null;
  expected_id: string | null | undefined;
  now_ms: number;
}

/** A `host_silence` problem to open, or to reopen (the same problem) when it is resolved. */
export interface SilenceInput {
  key: string;
  fingerprint: string;
  host_id: string;
  hostname: string;
  title: string;
  now_ms: number;
}

/** How many problems of one type and rule were created in a span. */
export interface OpenedByType {
  type: string;
  rule: string;
  opened: number;
}

export interface ProblemCounts {
  /** Not resolved: open or acknowledged. */
  open: number;
  /** Created in the given span and still open or acknowledged. */
  created_active: number;
  /** Resolved in the given span. */
  resolved: number;
}

export interface ProblemsRepo {
  /**
   * Atomically adds a group of events to the open or acknowledged problem of `key` whose span is
   * within the window of theirs (count += counted events, last_seen = max, first_seen = min,
   * severity = highest), or opens a new problem. Concurrent calls for one key and window end in
   * exactly one problem on both stores. The events are linked to the problem's timeline.
   */
  upsertMatch(input: ProblemMatchInput): Promise<{ problem: Problem | null; created: boolean }>;
  /**
   * `upsertMatch` for each input, results in input order; inputs of one key are applied in order.
   * SQLite applies the whole list in one transaction (an ingest batch's problems in one commit).
   */
  upsertMatchMany(inputs: ProblemMatchInput[]): Promise<{ problem: Problem | null; created: boolean }[]>;
  byId(id: string): Promise<Problem | null>;
  /** Newest `last_seen` first. */
  list(query: ProblemQuery): Promise<Problem[]>;
  /** The problem's events, newest occurred first, at most `limit`. */
  timeline(problemId: string, limit: number): Promise<ProblemLink[]>;
  /** The top addresses, users and hosts of the problem's counted events, counts exact over all of them. */
  facts(problemId: string): Promise<ProblemFacts>;
  /** The evidence stored when the problem was opened, or null. */
  evidence(problemId: string): Promise<ProblemEvidence | null>;
  /** Compare-and-set: applies the transition only while the status is one of `from`; null otherwise. */
  transition(id: string, from: readonly ProblemStatusValue[], change: ProblemTransition): Promise<Problem | null>;
  /**
   * Sets or clears the assignee; when `expected_id` is not undefined, only while the current
   * assignee id equals it (null: unassigned). Null when the problem is unknown or the guard failed.
   */
  assign(id: string, change: ProblemAssignment): Promise<Problem | null>;
  /** Open or acknowledged problems per host id, types in `hidden` left out. */
  activeCountsByHost(hidden: string[]): Promise<Map<string, number>>;
  /** Open or acknowledged problems per severity (a severity without any may be absent). */
  activeCountsBySeverity(): Promise<Map<Severity, number>>;
  /** Created (and resolved) counts cover [sinceMs, untilMs); no untilMs: up to now; `hostIds`: problems of these hosts only. */
  counts(sinceMs: number, hidden: string[], untilMs?: number, hostIds?: readonly string[]): Promise<ProblemCounts>;
  /** Problems created since `sinceMs` per type and rule, most first (ties by type, rule), at most `limit` rows. */
  openedByType(sinceMs: number, limit: number): Promise<OpenedByType[]>;
  /** The silence problems of these keys (one per host at most). */
  byKeys(keys: string[]): Promise<Problem[]>;
  /** Creates the host's silence problem unless one exists (then null). */
  openSilence(input: SilenceInput): Promise<Problem | null>;
  /** Reopens a resolved silence problem if it is still resolved at `resolved_ms`; null when someone else changed it. */
  reopenSilence(id: string, resolvedMs: number | null, nowMs: number, title: string): Promise<Problem | null>;
}
