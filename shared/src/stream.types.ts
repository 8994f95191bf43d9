import type { CommandView } from './actions.schema.js';
import type { RolloutCounts, RolloutState } from './rollouts.schema.js';
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
  | { type: 'problem.reopened'; data: StreamProblem }
  | { type: 'problem.assigned'; data: StreamProblem }
  | { type: 'host.status_changed'; data: { host_id: string; hostname: string; status: 'online' | 'stale' } }
  | { type: 'agent_update.changed'; data: StreamAgentUpdate }
  | { type: 'rollout.changed'; data: StreamRollout }
  | { type: 'command.updated'; data: CommandView }
  | { type: 'counters'; data: StreamCounters };

export type StreamMessageType = StreamMessage['type'];

/** Every stream message type (the SSE event names); the Record makes the compiler flag a type added to the union but not here. */
const STREAM_TYPE_SET: Record<StreamMessageType, true> = {
  'event.ingested': true,
  'problem.opened': true,
  'problem.updated': true,
  'problem.acknowledged': true,
  'problem.resolved': true,
  'problem.reopened': true,
  'problem.assigned': true,
  'host.status_changed': true,
  'agent_update.changed': true,
  'rollout.changed': true,
  'command.updated': true,
  counters: true,
};
export const STREAM_MESSAGE_TYPES = Object.keys(STREAM_TYPE_SET) as readonly StreamMessageType[];

/** True for the message types that go to stream clients (internal bus messages never do). */
export function isStreamMessageType(type: string): type is StreamMessageType {
  return Object.hasOwn(STREAM_TYPE_SET, type);
}

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
  'id' | 'host_id' | 'hostname' | 'type' | 'rule' | 'severity' | 'title' | 'status' | 'count' | 'first_seen' | 'last_seen' | 'assignee_id' | 'assignee'
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

/**
 * A rollout after a change (state, ring, a host's progress). `host_ids` are its hosts: a caller
 * limited to host groups gets it only when all of them are in its scope.
 */
export interface StreamRollout {
  id: string;
  product: string;
  target_version: string;
  state: RolloutState;
  current_ring: number;
  counts: RolloutCounts;
  host_ids: string[];
  updated_at: string;
}

/** Running totals since the daemon started, sent at most every 250 ms. */
export interface StreamCounters {
  events_total: number;
  by_severity: Record<Severity, number>;
  problems_opened: number;
}
