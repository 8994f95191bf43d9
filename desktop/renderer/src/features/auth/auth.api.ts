import type { LoginChallenge, TotpEnrollment } from '../../../../../shared/src/mfa.schema';
import type { SessionUser } from '../../../../../shared/src/roles';
import { requestJson } from '../../api/http';
import { call, trpc } from '../../api/trpc';
import { platform } from '../../platform';

/** What login and renewal return (the same shape as `POST /api/v1/auth/login`). */
export interface LoginResult {
  token: string;
  expires_at: string;
  user: SessionUser;
  csrf_token: string;
}

/** A sign-in step that answers a session: where the platform keeps no token (web), it asks for the session cookie. */
const signIn = <T>(path: string, body: unknown) =>
  requestJson<T>('POST', path, { body, auth: false, headers: platform.tokens ? {} : { 'X-SAC-Session': 'cookie' } });

export const authApi = {
  /** The session, or the second step (TOTP code or enrolment) the user must pass first. */
  login: (username: string, password: string) => signIn<LoginResult | LoginChallenge>('api/v1/auth/login', { username, password }),
  loginCode: (ticket: string, code: string) => signIn<LoginResult>('api/v1/auth/login/totp', { ticket, code }),
  loginEnroll: (ticket: string) => requestJson<TotpEnrollment>('POST', 'api/v1/auth/login/enroll', { body: { ticket }, auth: false }),
  loginEnrollConfirm: (ticket: string, code: string) => signIn<LoginResult & { recovery_codes: string[] }>('api/v1/auth/login/enroll/confirm', { ticket, code }),
  /** The session the browser's cookie belongs to (a new tab of the web build), with its CSRF token. */
  session: () => requestJson<{ user: SessionUser; expires_at: string; csrf_token: string | null }>('GET', 'api/v1/auth/session'),
  renew: () => requestJson<LoginResult>('POST', 'api/v1/auth/renew'),
  /** Revokes the session on the daemon, so a copy of the token stops working too. */
  logout: () => requestJson<null>('POST', 'api/v1/auth/logout'),
  me: () => requestJson<{ user: SessionUser } | SessionUser>('GET', 'api/v1/auth/me'),
  /** Changes one's own password; the daemon answers a fresh session for this console. */
  changePassword: (current_password: string, new_password: string) => call(() => trpc.auth.changePassword.mutate({ current_password, new_password })),
};

/** The `exp` claim of a JWT as epoch ms, or null when the token is not a readable JWT. */
export function tokenExpiry(token: string): number | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const json = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof json.exp === 'number' ? json.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** When to renew: 10 minutes before expiry; a session shorter than 20 minutes at 80 % of what is left; never in the past. */
export function renewDelayMs(expiresAtMs: number, nowMs: number): number {
  const remaining = expiresAtMs - nowMs;
  return Math.max(0, remaining > 20 * 60_000 ? remaining - 10 * 60_000 : remaining * 0.8);
}
