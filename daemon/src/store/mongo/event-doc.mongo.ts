import type { Event, Severity, SourceGeo } from '../../../../shared/src/index.js';

/** An event as the `events` collection holds it (read by the events and hosts repositories). */
export interface EventDoc {
  event_id: string;
  host_id: string;
  type: string;
  severity: Severity;
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  /** Absent on events stored before migration 61. */
  source_geo?: SourceGeo | null;
  event: Event;
  /**
   * `occurred_ms` in whole minutes, for lookups by time that FerretDB can push down to its
   * PostgreSQL backend (equality only: it filters ranges and `$in` itself, after reading the whole
   * collection). Absent on events stored before migration 39. Never returned by the repository.
   */
  occurred_minute?: number;
}

export const MINUTE_MS = 60_000;
