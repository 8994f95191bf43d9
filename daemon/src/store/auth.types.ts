import type { Role } from '../../../shared/src/index.js';

/** A console user as stored. `username` keeps its spelling; uniqueness is case-insensitive. */
export interface UserRecord {
  id: string;
  username: string;
  display_name: string | null;
  role: Role;
  active: boolean;
  /** `scrypt$N$r$p$salt$hash` (base64). */
  password_hash: string;
  /** Incremented on every password change; tokens carry it, so older tokens stop working. */
  token_version: number;
  created_ms: number;
  updated_ms: number;
  /** The latest successful sign-in (a session started); null = never signed in. */
  last_login_ms: number | null;
}

/** Fields a user change may set; a new `password_hash` also increments `token_version`. */
export interface UserPatch {
  display_name?: string | null;
  role?: Role;
  active?: boolean;
  password_hash?: string;
  updated_ms: number;
}

/** `last_admin`: refused because no active admin would remain. */
export type UserChange = { status: 'ok'; user: UserRecord } | { status: 'not_found' } | { status: 'last_admin' };

export interface UsersRepo {
  /** `duplicate` when the username is taken (case-insensitive), also under concurrency. */
  insert(user: UserRecord): Promise<'inserted' | 'duplicate'>;
  byId(id: string): Promise<UserRecord | null>;
  /** Case-insensitive. */
  byUsername(username: string): Promise<UserRecord | null>;
  list(): Promise<UserRecord[]>;
  count(): Promise<number>;
  /** Applies the patch unless it would leave no active admin. */
  update(id: string, patch: UserPatch): Promise<UserChange>;
  /** Deletes the user unless it is the last active admin; `ok` carries the deleted record. */
  delete(id: string): Promise<UserChange>;
  /** Records a successful sign-in; an earlier time than the stored one is ignored (daemons racing). */
  recordLogin(id: string, atMs: number): Promise<void>;
}

/** Failed sign-in attempts and the lock of one username (lower-cased). */
export interface LoginThrottleState {
  failures_ms: number[];
  locked_until_ms: number | null;
}

export interface LoginThrottleRepo {
  state(key: string): Promise<LoginThrottleState | null>;
  /** Appends a failure (keeping the latest `keep`) and returns the failures now recorded. */
  recordFailure(key: string, atMs: number, keep: number): Promise<number[]>;
  /**
   * Locks the username until `untilMs` and forgets its failures, unless it is already locked at
   * `nowMs`. True only for the one call that set the lock, so its alert is sent once.
   */
  lock(key: string, untilMs: number, nowMs: number): Promise<boolean>;
  /** Forgets failures after a successful sign-in. */
  clear(key: string): Promise<void>;
  /** Lifts the lock and forgets the failures (an admin unlocks the user); the lock's end, or null when none was in force at `nowMs`. */
  unlock(key: string, nowMs: number): Promise<number | null>;
  /** The locks in force at `nowMs` among `keys` (at most a page of users), by key. */
  locksOf(keys: readonly string[], nowMs: number): Promise<Map<string, number>>;
  /** Deletes keys with no failure since `failuresBeforeMs` and no lock at `nowMs`; returns how many. */
  prune(failuresBeforeMs: number, nowMs: number): Promise<number>;
}

/** The console session a stream ticket was issued from: the stream ends with that session's token. */
export interface TicketSession {
  session_id: string;
  /** When the token that asked for the ticket expires. */
  ends_ms: number;
}

/** Single-use tickets for the live stream (EventSource cannot send an Authorization header). */
export interface StreamTicketsRepo {
  insert(hash: string, userId: string, expiresMs: number, session: TicketSession | null): Promise<void>;
  /** Deletes the ticket and returns its user and session when it existed and had not expired; atomic. */
  consume(hash: string, nowMs: number): Promise<{ user_id: string; session: TicketSession | null } | null>;
  /** Removes expired tickets. */
  prune(nowMs: number): Promise<void>;
}
