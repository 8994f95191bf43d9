import type { Event, Severity } from '../../../shared/src/index.js';

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
  event: Event;
}
