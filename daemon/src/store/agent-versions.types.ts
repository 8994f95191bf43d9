/** The latest version of an agent product as last read from its git repository. */
export interface AgentVersionRecord {
  product: string;
  latest_version: string | null;
  commit: string | null;
  /** When the repository was last read, successfully or not. */
  checked_ms: number | null;
  /** Why the last read failed (redacted git message); null after a good read. */
  error: string | null;
  /** The failure's reason code (`unsigned_release`, `unreachable`, `auth_failed`, …); null after a good read. */
  error_reason: string | null;
}

export interface AgentVersionsRepo {
  /**
   * Records the outcome of a read. A failed read (`error` set) keeps the last good version and
   * commit, so one unreachable fetch does not clear every host's outdated badge.
   */
  record(outcome: AgentVersionRecord): Promise<AgentVersionRecord>;
  list(): Promise<AgentVersionRecord[]>;
}
