/**
 * The events whose `details` ingest looks up by host and occurred time — both sides of an RD
 * Gateway pair, for the flap rule — and the fields it reads. The stores keep exactly these lookups
 * cheap: SQLite with partial indexes (migration 15), MongoDB with a small collection of these
 * fields of the recent ones (`event_lookups`).
 */

/** RD Gateway 302: a session opened. */
export const RDG_OPENED = 'rdg.connection.success';
/** RD Gateway 303: a session closed (cleanly or with an error code). */
export const RDG_CLOSED = ['rdg.connection.disconnected', 'rdg.connection.failed'] as const;
/** The `details` fields the flap rule reads. */
export const GATEWAY_DETAIL_KEYS: readonly string[] = ['user', 'internal_ip', 'external_ip'];
/** The types whose details are looked up. */
export const LOOKUP_TYPES: readonly string[] = [RDG_OPENED, ...RDG_CLOSED];
