/** One audit log entry: who, when, from where, what. Never secret values. */
export interface AuditEntry {
  id: string;
  at_ms: number;
  /** The acting console user; null for anonymous actions such as a failed sign-in. */
  actor_id: string | null;
  /** The acting user's name, or the username a sign-in attempt named. */
  actor_username: string | null;
  ip: string | null;
  /** Dotted, past tense: `auth.login_succeeded`, `settings.updated`, `user.deleted`… */
  action: string;
  /** What was acted on, e.g. `user:<id>`, `settings:smtp`, `problem:<id>`. */
  target: string | null;
  outcome: 'ok' | 'failed' | 'denied';
  details: Record<string, unknown>;
}

export interface AuditQuery {
  /** Exact action, or a prefix ending in `.` (e.g. `auth.`). */
  action?: string;
  actor?: string;
  target?: string;
  outcome?: AuditEntry['outcome'];
  from_ms?: number;
  /** Exclusive upper bound; page on with the last entry's `at_ms` (and its `id` as `before_id`). */
  before_ms?: number;
  /**
   * With `before_ms`: also the entries at exactly `before_ms` listed after this one (newest first),
   * so a page that ended inside a run of entries of one millisecond goes on with the rest of it.
   */
  before_id?: string;
  limit: number;
}

export interface AuditRepo {
  insert(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** How many entries match the filters (the limit does not apply). */
  count(query: Omit<AuditQuery, 'limit'>): Promise<number>;
  /** Deletes entries recorded before `beforeMs`; returns how many. */
  prune(beforeMs: number): Promise<number>;
}
