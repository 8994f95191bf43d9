/**
 * A console session: one sign-in. Every token issued for it (the sign-in's and each renewal's)
 * carries its id, so signing out ends them all, and none outlives `expires_ms`.
 */
export interface SessionRecord {
  /** Random id, the `sid` claim of the session's tokens. */
  id: string;
  user_id: string;
  created_ms: number;
  /** Absolute end, fixed at sign-in: renewals never move it. */
  expires_ms: number;
  /** Set by sign-out; a revoked session's tokens are refused. */
  revoked_ms: number | null;
  /** Source address of the sign-in, for the user's own review. */
  ip: string | null;
}

export interface SessionsRepo {
  insert(session: SessionRecord): Promise<void>;
  byId(id: string): Promise<SessionRecord | null>;
  /** Revokes the session (keeping an earlier revocation time); false when there is no such session. */
  revoke(id: string, atMs: number): Promise<boolean>;
  /** Revokes every unrevoked session of the user; returns how many. */
  revokeUser(userId: string, atMs: number): Promise<number>;
  /** Deletes sessions that ended (expired or revoked) before `beforeMs`; returns how many. */
  prune(beforeMs: number): Promise<number>;
}
