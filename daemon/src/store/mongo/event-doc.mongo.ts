import type { Event, Severity } from '../../../../shared/src/index.js';

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
  event: Event;
}
