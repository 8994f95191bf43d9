/** Agent update job states: the specification's `agent.update.*` progress, plus SAC's own push. */
export const AGENT_UPDATE_STATES = ['pending', 'started', 'success', 'failed', 'fallback'] as const;
export type AgentUpdateState = (typeof AGENT_UPDATE_STATES)[number];

/** How the new version reaches the host: the agent fetches it on poll, or SAC pushes it. */
export type AgentUpdatePath = 'agent' | 'winrm' | 'ssh';

export interface AgentUpdateJob {
  id: string;
  host_id: string;
  product: string;
  from_version: string | null;
  target_version: string;
  /** The commit the bundle is built from. */
  target_commit: string;
  state: AgentUpdateState;
  path: AgentUpdatePath;
  created_ms: number;
  updated_ms: number;
  /** When a poll handed the update to the agent (null until then). */
  offered_ms: number | null;
  requested_by: string;
  /** Output of a push, or the reason of a failure (bounded). */
  output: string | null;
}

export interface AgentUpdateQuery {
  host_id?: string;
  state?: AgentUpdateState;
  limit: number;
}

/** A download credential of one job's bundle: only its hash is stored. */
export interface BundleToken {
  hash: string;
  job_id: string;
  expires_ms: number;
}

/** A built bundle of a product at a version (the file lives under the data directory). */
export interface AgentBundle {
  product: string;
  version: string;
  commit: string;
  sha256: string;
  size: number;
  created_ms: number;
}

export interface AgentUpdatesRepo {
  /** Creates the job unless the host already has an unfinished one (pending, started, fallback); answers that one then. */
  insertJob(job: AgentUpdateJob): Promise<{ status: 'inserted'; job: AgentUpdateJob } | { status: 'active'; job: AgentUpdateJob }>;
  byId(id: string): Promise<AgentUpdateJob | null>;
  list(query: AgentUpdateQuery): Promise<AgentUpdateJob[]>;
  /** The unfinished job of a host (pending, started or being pushed), if any. */
  activeForHost(hostId: string): Promise<AgentUpdateJob | null>;
  /** Jobs of a product that were handed out and have not finished (for `max_parallel`). */
  countInProgress(product: string): Promise<number>;
  /**
   * Compare-and-set: applies `patch` only while the job is in one of `from` (and, with `unoffered`,
   * no poll has handed it out yet); answers the job after, or null.
   */
  transition(
    id: string,
    from: readonly AgentUpdateState[],
    patch: Partial<Pick<AgentUpdateJob, 'state' | 'path' | 'updated_ms' | 'offered_ms' | 'output'>>,
    opts?: { unoffered?: boolean },
  ): Promise<AgentUpdateJob | null>;
  /** Pending or started jobs last changed before `beforeMs` (the fallback scan). */
  stale(beforeMs: number): Promise<AgentUpdateJob[]>;
  insertToken(token: BundleToken): Promise<void>;
  /** Takes a token that has not expired: each link downloads once. */
  consumeToken(hash: string, nowMs: number): Promise<BundleToken | null>;
  /** Deletes tokens expired at `nowMs` (links never followed); returns how many. */
  pruneTokens(nowMs: number): Promise<number>;
  bundle(product: string, version: string): Promise<AgentBundle | null>;
  putBundle(bundle: AgentBundle): Promise<void>;
  /** The desired agent configuration of a host (`{}` when none is stored). */
  hostConfig(hostId: string): Promise<Record<string, unknown>>;
  putHostConfig(hostId: string, config: Record<string, unknown>, atMs: number, by: string): Promise<void>;
}
