/** A failed login of the fleet by its source address (the cross-host login rules count these). */
export interface SourceFailure {
  event_id: string;
  /** The source address as parsed (`SourceGeo.ip` form), private ones included. */
  address: string;
  host_id: string;
  hostname: string;
  occurred_ms: number;
}

/**
 * The fleet's failed logins by source address, kept only as long as the rules look back: written
 * by ingest's correlation step in the batch's commit, read back by every daemon, so a count is
 * what all daemons stored, not what one of them saw.
 */
export interface SourceFailuresRepo {
  /** Records failures (an event already recorded is skipped) and deletes those occurred before `pruneBeforeMs` (MongoDB: at most a minute later). */
  record(rows: SourceFailure[], pruneBeforeMs: number): Promise<void>;
  /** The failures of these addresses occurred in [from_ms, to_ms], newest first, at most `limit`. */
  list(q: { addresses: string[]; from_ms: number; to_ms: number; limit: number }): Promise<SourceFailure[]>;
}
