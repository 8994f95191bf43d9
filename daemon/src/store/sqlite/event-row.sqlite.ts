import type { Event } from '../../../../shared/src/index.js';
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
  doc: string;
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
    event,
  };
}
