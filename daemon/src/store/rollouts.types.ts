import type { RolloutHealth, RolloutHostState, RolloutHosts, RolloutRingState, RolloutState } from '../../../shared/src/index.js';

/** One host of a rollout's ring as stored. */
export interface RolloutHostRecord {
  host_id: string;
  hostname: string;
  state: RolloutHostState;
  reason: string | null;
  /** The host's update (or rollback) job; null before one. */
  job_id: string | null;
  /** When that job was created (the heartbeat window starts then); null before one. */
  job_ms: number | null;
}

export interface RolloutRingRecord {
  index: number;
  kind: 'canary' | 'wave';
  percent: number | null;
  soak_minutes: number;
  state: RolloutRingState;
  started_ms: number | null;
  finished_ms: number | null;
  hosts: RolloutHostRecord[];
}

/** A staged rollout as stored: one record, rings and hosts inside, changed by compare-and-set on `rev`. */
export interface RolloutRecord {
  id: string;
  product: string;
  target_version: string;
  target_commit: string;
  /** The newest release older than the target (a rollback's target, verified again when used); null when none. */
  previous_version: string | null;
  from: RolloutHosts;
  health: RolloutHealth;
  rings: RolloutRingRecord[];
  state: RolloutState;
  current_ring: number;
  halt_reason: string | null;
  created_by: string;
  approved_by: string | null;
  created_ms: number;
  updated_ms: number;
  finished_ms: number | null;
  /** Bumped by every change; `update` applies only over the revision it read. */
  rev: number;
}

/** A version pin: hosts of `product` in the group, or the host, are never updated past `max_version`. */
export interface AgentPinRecord {
  id: string;
  product: string;
  max_version: string;
  group_id: string | null;
  host_id: string | null;
  note: string;
  created_by: string;
  created_ms: number;
}

export interface RolloutsRepo {
  insert(record: RolloutRecord): Promise<void>;
  byId(id: string): Promise<RolloutRecord | null>;
  /** Newest first. */
  list(q: { state?: RolloutState; limit: number }): Promise<RolloutRecord[]>;
  /** Rollouts running or paused (the ones that can still move). */
  unfinished(): Promise<RolloutRecord[]>;
  /** Stores `record` (with `rev` bumped by the caller) only while the stored one is at `rev`; false when another writer won. */
  update(record: RolloutRecord, rev: number): Promise<boolean>;
  pins(product?: string): Promise<AgentPinRecord[]>;
  /** Creates the pin, or replaces the one of the same product and group or host; answers the stored pin. */
  putPin(pin: AgentPinRecord): Promise<AgentPinRecord>;
  pinById(id: string): Promise<AgentPinRecord | null>;
  /** False when there was no such pin. */
  removePin(id: string): Promise<boolean>;
}
