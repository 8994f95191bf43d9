import { z } from 'zod';

/** Commands the Windows agent's command channel runs. */
export const COMMAND_TYPES = ['qwinsta', 'logoff'] as const;
export type CommandTypeName = (typeof COMMAND_TYPES)[number];
export const COMMAND_STATES = ['queued', 'delivered', 'succeeded', 'failed', 'expired'] as const;
export type CommandStateName = (typeof COMMAND_STATES)[number];

/** Most characters of agent output kept per stream (stdout, stderr). */
export const COMMAND_OUTPUT_MAX = 262_144;

/**
 * `POST /api/v1/agent/commands/{id}/result`. The real agent sends `completed` or `failed`; the
 * specification names `success`: all three are accepted.
 */
export const AgentCommandResultSchema = z.object({
  status: z.enum(['success', 'completed', 'failed']),
  stdout: z.string().max(COMMAND_OUTPUT_MAX),
  stderr: z.string().max(COMMAND_OUTPUT_MAX),
});

/** A Windows session id: the agent refuses session 0 (services), so it is refused here too. */
export const SessionIdSchema = z.number().int().min(1).max(65_535);

export const LogoffBodySchema = z.strictObject({ session_id: SessionIdSchema });
export const EventLogoffBodySchema = z.strictObject({ session_id: SessionIdSchema.optional() });

export const CommandListQuerySchema = z.strictObject({
  host_id: z.string().min(1).max(128).optional(),
  state: z.enum(COMMAND_STATES).optional(),
  before: z.iso.datetime({ offset: true }).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** One session of `qwinsta`, as parsed (English state names whatever the host's language). */
export interface SessionView {
  session_name: string;
  username: string;
  id: number;
  /** English state name (`Active`, `Disc`, `Listen`, …); a state the parser does not know stays as printed. */
  state: string;
  type: string;
  device: string;
}

/** A queued agent command as operators see it. */
export interface CommandView {
  id: string;
  host_id: string;
  agent_instance_id: string;
  type: CommandTypeName;
  params: Record<string, unknown>;
  state: CommandStateName;
  requested_by: string | null;
  origin: string | null;
  created_at: string;
  delivered_at: string | null;
  deliveries: number;
  finished_at: string | null;
  expires_at: string;
  result: { status: 'succeeded' | 'failed'; stdout: string; stderr: string } | null;
  /** For a `qwinsta` that succeeded: its output parsed. */
  sessions: SessionView[] | null;
}

/** Which way a remote action ran: synchronously over WinRM, or queued to the host's agent. */
export type ActionPath = 'winrm' | 'agent';

/** Answer of a session listing: the sessions (WinRM, 200) or the queued command (agent, 202). */
export type SessionsAnswer =
  | { path: 'winrm'; host_id: string; target: string; sessions: SessionView[]; raw: string; duration_ms: number }
  | { path: 'agent'; host_id: string; command: CommandView };

/** Answer of a logoff: done (WinRM, 200) or the queued command (agent, 202). */
export type LogoffAnswer =
  | { path: 'winrm'; host_id: string; target: string; session_id: number; output: string; duration_ms: number }
  | { path: 'agent'; host_id: string; command: CommandView };

/** Result of a WinRM or SSH administrator access test. */
export interface AccessTestResult {
  ok: boolean;
  detail: string;
  duration_ms: number;
}
