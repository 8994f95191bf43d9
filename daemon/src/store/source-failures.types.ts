/** A failed login of the fleet by its source address (the cross-host login rules count these). */
export interface SourceFailure {
  event_id: string;
  /** The source address as parsed (`SourceGeo.ip` form), private ones included. */
  address: string;
  host_id: string;
  hostname: string;
  occurred_ms: number;
}

/** What the store holds of one address's failures in a span. */
export interface SourceFailureStats {
  address: string;
  /** Failed logins (each event once). */
  count: number;
  /** The distinct hosts failed on, by first failure in the span. */
  hosts: { host_id: string; hostname: string }[];
  /** Most `limit` failure event ids, oldest first (for the problem's timeline). */
  event_ids: string[];
}

/**
 * The fleet's failed logins by source address, kept only as long as the rules look back: written
 * by ingest's correlation step in the batch's commit, read back by every daemon, so a count is
 * what all daemons stored, not what one of them saw.
 */
export interface SourceFailuresRepo {
  /** Records failures (an event already recorded is skipped) and deletes those occurred before `pruneBeforeMs`. */
  record(rows: SourceFailure[], pruneBeforeMs: number): Promise<void>;
  /** Per address: the failures occurred in [from_ms, to_ms]; an address without any is absent. */
  stats(q: { addresses: string[]; from_ms: number; to_ms: number; limit: number }): Promise<SourceFailureStats[]>;
}
