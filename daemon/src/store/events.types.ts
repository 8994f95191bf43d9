import type { Event, FailedLoginSources, Severity, SourceGeo } from '../../../shared/src/index.js';
import type { HostObservation } from './hosts.types.js';

/** A stored event: its indexed fields, what SAC derived at ingest, and the payload as sent. */
export interface StoredEvent {
  event_id: string;
  host_id: string;
  type: string;
  severity: Severity;
  occurred_at: string;
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  /** The source address's scope, country and ASN at ingest; null without an address (or stored before enrichment). */
  source_geo: SourceGeo | null;
  event: Event;
}

/** An event ready to be written: the validated payload plus what SAC derives at ingest. */
export interface NewEvent {
  event: Event;
  host: HostObservation;
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  /** Set by the enrichment step before the batch is committed; absent = not enriched. */
  source_geo?: SourceGeo | null;
}

/**
 * `rejected`: the store refused this one event's content (e.g. a key MongoDB cannot hold); the
 * others of its batch are unaffected.
 */
export type InsertOutcome = { status: 'inserted'; host_id: string } | { status: 'duplicate' } | { status: 'rejected'; reason: string };

/** An event its batch inserted for the first time, with the host it is filed under (what commit listeners get). */
export interface CommittedEvent extends NewEvent {
  host_id: string;
}

export interface EventsRepo {
  /**
   * Writes a batch in one commit (group commit). Each item's outcome is at its index: `inserted`
   * with the host it was linked to, or `duplicate` when its `event_id` already exists — also when
   * the same id appears twice in the batch or arrives concurrently. Hosts are created (or
   * recreated after deletion) and their last-seen and agent fields updated from inserted events.
   * `afterInsert` — the ingest listeners — runs with the outcomes inside the same commit where the
   * store can (SQLite: one transaction and one sync, so events are never stored without what the
   * listeners derived from them), otherwise right after the insert. It should not throw; if it
   * does, the promise rejects (on SQLite with the whole batch rolled back). Resolves only once the
   * batch and what `afterInsert` wrote are durable.
   */
  insertBatch(items: NewEvent[], afterInsert?: (outcomes: InsertOutcome[]) => Promise<void>): Promise<InsertOutcome[]>;
  byId(eventId: string): Promise<StoredEvent | null>;
  count(): Promise<number>;
  /** Sets the stored severity of events a per-type override changed (the payload keeps the agent's). */
  setStoredSeverity(updates: { event_id: string; severity: Severity }[]): Promise<void>;
  /** Claims content fingerprints in order; false at an index whose fingerprint was already claimed (a replay). */
  claimFingerprints(items: { fp: string; host_id: string; event_id: string }[]): Promise<boolean[]>;
  /** Marks a 303 as a flap of its 302; true only when newly marked. */
  markFlap(closedEventId: string, openedEventId: string, hostId: string): Promise<boolean>;
  /** The ids among `eventIds` that are either side of a flap. */
  flapMarked(eventIds: string[]): Promise<Set<string>>;
  search(query: EventQuery): Promise<StoredEvent[]>;
  /** How many events match `query` (its limit, order and cursor are ignored). */
  countMatching(query: EventQuery): Promise<number>;
  /**
   * Events of `types` occurred in [from_ms, to_ms) counted by source country and by source ASN
   * (as enriched at ingest), the largest first, at most `limits` of each; `host_ids`: of these hosts only.
   */
  sourceCounts(q: { types: string[]; from_ms: number; to_ms: number; limits: { countries: number; asns: number }; host_ids?: readonly string[] }): Promise<FailedLoginSources>;
  /**
   * Events of these hosts occurred in [from_ms, to_ms), types in `hidden` left out, counted per hour
   * of occurred time (`bucket_ms`) and stored severity: the counters of a dashboard over some hosts
   * (the hourly rollups count the whole fleet per severity). Reads the hosts' events of the range.
   */
  severityHours(q: { host_ids: readonly string[]; from_ms: number; to_ms: number; hidden: string[] }): Promise<{ bucket_ms: number; severity: Severity; n: number }[]>;
  /**
   * A host's events of `types` with occurred time in [from_ms, to_ms), newest first, at most
   * `limit`: only the named top-level `details` fields, not the payload (cheap enough for ingest).
   */
  details(query: EventDetailsQuery): Promise<EventDetailsRow[]>;
  /**
   * Deletes up to `limit` events that occurred before `beforeMs`, oldest first, with their flap
   * marks; the dashboard counters (rollups) and problems keep counting them. Returns how many.
   */
  prune(beforeMs: number, limit: number): Promise<number>;
}

/** A query over stored events; newest occurred first. */
export interface EventQuery {
  event_ids?: string[];
  host_ids?: string[];
  severities?: Severity[];
  type_prefix?: string;
  /** Exact types to match (alternative to a prefix). */
  types?: string[];
  from_ms?: number;
  /** Exclusive. */
  to_ms?: number;
  /** Case-insensitive text in title or summary. */
  q?: string;
  /** Text in the acting user's name (case-insensitive). */
  actor?: string;
  /** `actor` is the whole name (case-insensitive) rather than text in it. */
  actor_exact?: boolean;
  /** Exact address in details.ip_address, source_ip or external_ip. */
  ip?: string;
  /** Source country (ISO 3166-1 alpha-2, upper case), as enriched at ingest. */
  country?: string;
  /** Source autonomous system number, as enriched at ingest. */
  asn?: number;
  /** Time the search may take; past it, it fails with `event/search_too_broad`. */
  budget_ms?: number;
  hidden: string[];
  limit: number;
  /** Newest first unless 'asc'; `after` continues in the same order. */
  order?: 'asc' | 'desc';
  after?: { occurred_ms: number; event_id: string };
}

export interface EventDetailsQuery {
  /** The hosts whose events are read (one query for all of them). */
  host_ids: string[];
  types: string[];
  from_ms: number;
  /** Exclusive. */
  to_ms: number;
  /** `details` fields to return (plain keys). */
  keys: string[];
  limit: number;
}

export interface EventDetailsRow {
  event_id: string;
  host_id: string;
  type: string;
  occurred_ms: number;
  /** The requested fields that the event carries. */
  details: Record<string, unknown>;
}
