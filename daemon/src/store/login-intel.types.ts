import type { LoginSighting } from '../../../shared/src/index.js';

/** What a per-user baseline row counts: the user's logins overall, or one country, ASN, host or hour of day. */
export type BaselineDimension = 'user' | 'country' | 'asn' | 'host' | 'hour';

/**
 * One value of a user's login baseline (user = normalised login user). The `user` row (value '')
 * counts all the user's successful logins; `first_ms` there starts the learning period.
 */
export interface BaselineValue {
  user: string;
  dim: BaselineDimension;
  /** Country code, ASN, host id or hour (0–23) as text; '' for the `user` row. */
  value: string;
  /** The ASN's organisation, the host's name; else null. */
  label: string | null;
  count: number;
  first_ms: number;
  last_ms: number;
  /** The newest login of the value (country rows: impossible travel compares them); else null. */
  sighting: LoginSighting | null;
}

/**
 * The fleet's per-user login baselines, learnt from successful logins. Every write is an atomic
 * upsert per value (count added, first/last kept as min/max, the newest login's label and
 * sighting kept), so several daemons adding at once sum exactly.
 */
export interface LoginBaselinesRepo {
  /**
   * Deletes the values last seen before `pruneBeforeMs` (MongoDB: at most a minute later; added to
   * meanwhile, such a value starts afresh) (not seen for the learning period: a value
   * seen again starts afresh), then adds these counts (one entry per user, dimension and value).
   */
  add(increments: BaselineValue[], pruneBeforeMs: number): Promise<void>;
  /** Every stored value of these users. */
  of(users: string[]): Promise<BaselineValue[]>;
  /** Deletes these values (a user's least recent ones past the per-dimension cap). */
  remove(keys: Pick<BaselineValue, 'user' | 'dim' | 'value'>[]): Promise<void>;
  /** Replaces every baseline with these values (the rebuild from stored events). */
  replaceAll(values: BaselineValue[]): Promise<void>;
}

/** One login (successful or failed) of a normalised user, as `logins.user` lists it. */
export interface UserLogin extends Omit<LoginSighting, 'at'> {
  user: string;
  occurred_ms: number;
  type: string;
  outcome: 'success' | 'failure';
}

/** The fleet's logins by normalised user, kept for the baseline's learning period. */
export interface UserLoginsRepo {
  /** Records logins (an event already recorded is skipped) and deletes those occurred before `pruneBeforeMs` (MongoDB: at most a minute later). */
  record(rows: UserLogin[], pruneBeforeMs: number): Promise<void>;
  /** The user's logins, newest first, at most `limit`. */
  list(user: string, limit: number): Promise<UserLogin[]>;
}
