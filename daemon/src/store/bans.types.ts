import type { BanHostOutcome, BanStatus, BanTarget, BanView } from '../../../shared/src/index.js';

/** One host's part of a ban as stored. */
export interface BanHostRecord {
  host_id: string;
  hostname: string;
  outcome: BanHostOutcome;
  detail: string | null;
  address: string | null;
  at_ms: number | null;
}

/** A fleet SSH ban as stored; times in epoch ms. */
export interface BanRecord {
  id: string;
  address: string;
  family: 4 | 6;
  status: BanStatus;
  /**
   * The address while the ban is open (proposed or active), `closed:<id>` after: unique, so an
   * address has at most one open ban however many daemons propose it at once.
   */
  slot: string;
  reason: string;
  source: BanView['source'];
  event_id: string | null;
  problem_id: string | null;
  target: BanTarget;
  duration_s: number;
  previous_bans: number;
  created_by: string | null;
  created_ms: number;
  applied_by: string | null;
  applied_ms: number | null;
  expires_ms: number | null;
  ended_by: string | null;
  ended_ms: number | null;
  hosts: BanHostRecord[];
}

/** The fields a state change writes. */
export type BanChange = Partial<Pick<BanRecord, 'status' | 'slot' | 'target' | 'reason' | 'duration_s' | 'previous_bans' | 'applied_by' | 'applied_ms' | 'expires_ms' | 'ended_by' | 'ended_ms' | 'hosts'>>;

export interface BansRepo {
  /** Stores a new open ban; when the address already has one, stores nothing and returns that one. */
  insertOpen(record: BanRecord): Promise<{ inserted: true } | { inserted: false; existing: BanRecord }>;
  byId(id: string): Promise<BanRecord | null>;
  /** Newest first; `open`: proposed or active. */
  list(query: { status: 'open' | 'closed' | 'all'; limit: number }): Promise<BanRecord[]>;
  /** Applies `change` when the ban's status is still `from`; the record after, or null when it was not. */
  transition(id: string, from: BanStatus, change: BanChange): Promise<BanRecord | null>;
  /** How many bans of `address` were applied at or after `sinceMs`. */
  appliedSince(address: string, sinceMs: number): Promise<number>;
  /** Active bans whose expiry is at or before `nowMs`. */
  expiredBy(nowMs: number): Promise<BanRecord[]>;
}
