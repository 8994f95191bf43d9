import type { UserPatch, UserRecord } from './auth.types.js';

/** The next user record and whether it may be written: both adapters apply these, only locking differs. */

export const isActiveAdmin = (u: Pick<UserRecord, 'role' | 'active'>): boolean => u.role === 'admin' && u.active;

/** The user after a patch; a new password invalidates the tokens issued before it. */
export function patchedUser(before: UserRecord, patch: UserPatch): UserRecord {
  return {
    ...before,
    ...patch,
    token_version: patch.password_hash !== undefined ? before.token_version + 1 : before.token_version,
  };
}

/**
 * The last-admin rule: a change (or a deletion, `after` null) is refused when it takes the admin
 * role or activity from the only active admin. `otherActiveAdmins` counts the active admins
 * besides this user.
 */
export function removesLastAdmin(before: UserRecord, after: UserRecord | null, otherActiveAdmins: number): boolean {
  return isActiveAdmin(before) && !(after && isActiveAdmin(after)) && otherActiveAdmins === 0;
}
