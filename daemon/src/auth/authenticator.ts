import type { SessionUser } from '../../../shared/src/index.js';

/**
 * Turns a console bearer token into the active user it belongs to, or null (unknown, expired,
 * deactivated, deleted, or issued before a password change). Checked on every request.
 */
export interface Authenticator {
  authenticate(token: string): Promise<SessionUser | null>;
}
