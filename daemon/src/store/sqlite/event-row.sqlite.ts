import type { AddressScope, Event, SourceGeo } from '../../../../shared/src/index.js';
import type { StoredEvent } from '../events.types.js';

/** A row of the `events` table: the indexed columns and the whole payload as JSON (`doc`). */
export interface EventRow {
  event_id: string;
  host_id: string;
  type: string;
  severity: StoredEvent['severity'];
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  /** The source address's enrichment (migration 61); geo_ip null = none. */
  geo_ip: string | null;
  geo_scope: AddressScope | null;
  geo_country: string | null;
  geo_asn: number | null;
  geo_as_org: string | null;
  doc: string;
}

/** The columns of an `events` row after `doc`'s, in order (what a search selects). */
export const EVENT_COLUMNS = 'event_id, host_id, type, severity, occurred_ms, received_ms, actor_user, agent_version, geo_ip, geo_scope, geo_country, geo_asn, geo_as_org, doc';

/**
 * Migration 61: each event's source address enrichment, with the indexes of the country and ASN
 * filters, and a covering index of the failed logins' sources (the dashboard counts them from it
 * alone; its type list is `FAILED_LOGIN_TYPES`, which the dashboard's query names the same way).
 */
export const EVENTS_GEO_SQLITE_MIGRATION = {
  id: 61,
  name: 'events: source address country and ASN (offline enrichment at ingest)',
  sql: `
    ALTER TABLE events ADD COLUMN geo_ip TEXT;
    ALTER TABLE events ADD COLUMN geo_scope TEXT;
    ALTER TABLE events ADD COLUMN geo_country TEXT;
    ALTER TABLE events ADD COLUMN geo_asn INTEGER;
    ALTER TABLE events ADD COLUMN geo_as_org TEXT;
    CREATE INDEX events_by_country ON events (geo_country, occurred_ms) WHERE geo_country IS NOT NULL;
    CREATE INDEX events_by_asn ON events (geo_asn, occurred_ms) WHERE geo_asn IS NOT NULL;
    CREATE INDEX events_failed_login_sources ON events (occurred_ms, geo_country, geo_asn, geo_as_org, type)
      WHERE type IN ('ssh.login.failed', 'rdp.login.failed', 'rdg.connection.failed');
  `,
};

/** The enrichment columns of a row's `source_geo`, in `EVENT_COLUMNS` order. */
export function geoColumns(geo: SourceGeo | null | undefined): [string | null, string | null, string | null, number | null, string | null] {
  return geo ? [geo.ip, geo.scope, geo.country, geo.asn, geo.as_org] : [null, null, null, null, null];
}

/** The stored event of an `events` row. */
export function eventFromRow(row: EventRow): StoredEvent {
  const event = JSON.parse(row.doc) as Event;
  return {
    event_id: row.event_id,
    host_id: row.host_id,
    type: row.type,
    severity: row.severity,
    occurred_at: event.occurred_at,
    occurred_ms: row.occurred_ms,
    received_ms: row.received_ms,
    actor_user: row.actor_user,
    agent_version: row.agent_version,
    source_geo:
      row.geo_ip === null || row.geo_scope === null
        ? null
        : { ip: row.geo_ip, scope: row.geo_scope, country: row.geo_country, asn: row.geo_asn, as_org: row.geo_as_org },
    event,
  };
}
