import type { SessionUser } from '../../../shared/src/index.js';

/** The session a valid token belongs to and when the token itself expires. */
export interface TokenSession {
  sessionId: string;
  expiresMs: number;
}

/**
 * Turns a console bearer token into the active user it belongs to, or null (unknown, expired,
 * signed out, deactivated, deleted, or issued before a password change). Checked on every request.
 */
export interface Authenticator {
  authenticate(token: string): Promise<SessionUser | null>;
  /** The session and expiry of a token with a valid signature (no store read); null otherwise. */
  tokenSession(token: string): TokenSession | null;
  /** The CSRF token of a console token's session (cookie-authenticated writes send it); null for other tokens. */
  csrfToken(token: string): string | null;
}
