import type { CommandView } from './actions.schema.js';
import type { Severity } from './event.schema.js';
import type { ProblemView } from './read-api.schema.js';

/**
 * Messages of the live stream (`GET /api/v1/stream/events`, SSE) and of the daemon's in-process
 * bus. `type` is the SSE event name; `data` its JSON payload. Domain events are past tense, dotted.
 */
export type StreamMessage =
  | { type: 'event.ingested'; data: StreamEvent }
  | { type: 'problem.opened'; data: StreamProblem }
  | { type: 'problem.updated'; data: StreamProblem }
  | { type: 'problem.acknowledged'; data: StreamProblem }
  | { type: 'problem.resolved'; data: StreamProblem }
  | { type: 'host.status_changed'; data: { host_id: string; hostname: string; status: 'online' | 'stale' } }
  | { type: 'agent_update.changed'; data: StreamAgentUpdate }
  | { type: 'command.updated'; data: CommandView }
  | { type: 'counters'; data: StreamCounters };

export type StreamMessageType = StreamMessage['type'];

/** The summary of a stored event that the stream carries (not the whole payload). */
export interface StreamEvent {
  event_id: string;
  host_id: string;
  hostname: string;
  type: string;
  severity: Severity;
  title: string;
  occurred_at: string;
  received_at: string;
  actor_user: string | null;
}

/** The stream's summary of a problem: the list fields of the read API's `ProblemView`. */
export type StreamProblem = Pick<
  ProblemView,
  'id' | 'host_id' | 'hostname' | 'type' | 'rule' | 'severity' | 'title' | 'status' | 'count' | 'first_seen' | 'last_seen'
>;

/** An agent update job after a change of state. */
export interface StreamAgentUpdate {
  id: string;
  host_id: string;
  product: string;
  from_version: string | null;
  target_version: string;
  state: 'pending' | 'started' | 'success' | 'failed' | 'fallback';
  path: 'agent' | 'winrm' | 'ssh';
  updated_at: string;
}

/** Running totals since the daemon started, sent at most every 250 ms. */
export interface StreamCounters {
  events_total: number;
  by_severity: Record<Severity, number>;
  problems_opened: number;
}
