import type { SessionView } from '../../../shared/src/index.js';

/** Commands SAC queues to a Windows agent's command channel (`qwinsta`, `logoff`). */
export type CommandType = 'qwinsta' | 'logoff';

/** `queued → delivered → succeeded | failed | expired`; a delivered command goes back out only after its delivery timed out. */
export type CommandState = 'queued' | 'delivered' | 'succeeded' | 'failed' | 'expired';

export const FINISHED_COMMAND_STATES: readonly CommandState[] = ['succeeded', 'failed', 'expired'];

/** What the agent reported: its `status` (`success`/`completed` or `failed`) and raw output. */
export interface CommandResult {
  status: 'succeeded' | 'failed';
  stdout: string;
  stderr: string;
  /**
   * A succeeded qwinsta's sessions, parsed once when the result arrived (stored with it, in the
   * same JSON field on both stores). Absent on results stored before it was, which are parsed when read.
   */
  sessions?: SessionView[];
}

export interface CommandRecord {
  /** URL-safe, unique. */
  id: string;
  host_id: string;
  /** The agent installation the command is for (the only identity its poll sends). */
  agent_instance_id: string;
  type: CommandType;
  /** `{}` or `{ session_id: <integer> }`. */
  params: Record<string, unknown>;
  state: CommandState;
  /** Console user who asked for it. */
  requested_by: string | null;
  /** What it was asked for from, e.g. `host:<id>` or `event:<id>`. */
  origin: string | null;
  created_ms: number;
  updated_ms: number;
  /** Last time a poll handed it out. */
  delivered_ms: number | null;
  deliveries: number;
  /** The API key that fetched it last: a result must come with the same key. */
  delivered_key_id: string | null;
  finished_ms: number | null;
  /** After this instant a command without result is `expired`. */
  expires_ms: number;
  result: CommandResult | null;
}

export interface CommandListQuery {
  host_id?: string;
  state?: CommandState;
  /** Exclusive: page on with the last item's `created_ms`. */
  before_ms?: number;
  limit: number;
}

export type CommandCompletion =
  | { status: 'ok'; command: CommandRecord }
  | { status: 'not_found' }
  | { status: 'already_finished'; command: CommandRecord };

export interface CommandsRepo {
  insert(command: CommandRecord): Promise<void>;
  byId(id: string): Promise<CommandRecord | null>;
  /** Newest first. */
  list(query: CommandListQuery): Promise<CommandRecord[]>;
  /**
   * One agent poll, atomically: commands of `agentInstanceId` past `expires_ms` become `expired`;
   * queued ones, and delivered ones whose last delivery is older than `redeliverAfterMs`, become
   * `delivered` (by `keyId`) and are returned oldest first. A command is never handed to two
   * concurrent polls.
   */
  claimForAgent(
    agentInstanceId: string,
    keyId: string,
    nowMs: number,
    redeliverAfterMs: number,
    limit: number,
  ): Promise<{ delivered: CommandRecord[]; expired: CommandRecord[] }>;
  /**
   * Stores the result of a delivered command. `not_found` unless the command exists, was
   * delivered, and (when given) belongs to `agentInstanceId` and was fetched with `keyId`;
   * `already_finished` when it has a final state. Exactly one of concurrent results wins.
   */
  complete(id: string, by: { keyId: string; agentInstanceId: string | null }, result: CommandResult, nowMs: number): Promise<CommandCompletion>;
  /** Marks every unfinished command past its `expires_ms` as `expired` and returns them. */
  expireDue(nowMs: number): Promise<CommandRecord[]>;
}
