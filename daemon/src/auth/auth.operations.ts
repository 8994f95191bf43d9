import { z } from 'zod';
import { LoginRequestSchema, PasswordChangeSchema } from '../../../shared/src/index.js';
import { type Caller, defineOperation } from '../http/index.js';
import type { AuthService, OwnPasswordChange } from './auth.service.js';

const SessionUser = z.looseObject({ id: z.string(), username: z.string(), role: z.string() });
const Session = z.looseObject({ token: z.string(), expires_at: z.string(), user: SessionUser, csrf_token: z.string() });

/**
 * Sets the web console's session cookie when a sign-in or renewal answered a session and the call
 * wants one (the console's sign-in asks with `X-SAC-Session: cookie`; a renewal came with it).
 */
export async function withSessionCookie<T extends object>(auth: AuthService, caller: Pick<Caller, 'cookie'>, result: T): Promise<T> {
  if ('token' in result && typeof result.token === 'string' && caller.cookie.wanted) {
    const cookie = await auth.sessionCookie(result.token);
    caller.cookie.set(cookie.token, cookie.expiresMs);
  }
  return result;
}

/**
 * Console sign-in: sign in (public; a session token, or a second-factor challenge; with the web
 * console's session cookie when asked), who am I, the current session (a new tab of the web
 * console), renew before `expires_at`, sign out (revokes the session on the server and clears the
 * cookie), change one's own password (answers a new token).
 */
export function authOperations(auth: AuthService, users: OwnPasswordChange) {
  return [
    defineOperation({
      id: 'auth.login',
      summary: 'Sign in',
      role: 'public',
      method: 'POST',
      path: '/api/v1/auth/login',
      input: LoginRequestSchema,
      output: z.looseObject({}),
      errors: { '503': 'Sign-in queue full; retry later' },
      handler: async (input, caller) => withSessionCookie(auth, caller, await auth.login(input, caller.ip)),
    }),
    defineOperation({
      id: 'auth.me',
      summary: 'The signed-in user',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      path: '/api/v1/auth/me',
      envelope: 'user',
      output: SessionUser,
      handler: (_input, caller) => caller.user,
    }),
    defineOperation({
      id: 'auth.session',
      summary: 'The current session: user, expiry and the CSRF token cookie-authenticated writes send',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/auth/session',
      scope: 'none',
      output: z.object({ user: SessionUser, expires_at: z.string(), csrf_token: z.string().nullable() }),
      handler: (_input, caller) => auth.currentSession(caller.user, caller.token ?? ''),
    }),
    defineOperation({
      id: 'auth.renew',
      summary: 'Renew the session token',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/renew',
      output: Session,
      handler: async (_input, caller) => withSessionCookie(auth, caller, await auth.renew(caller.token ?? '')),
    }),
    defineOperation({
      id: 'auth.logout',
      summary: 'Sign out: the session is revoked on the server',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/logout',
      status: 204,
      output: z.object({ ok: z.literal(true) }),
      handler: async (_input, caller) => {
        await auth.logout(caller.token ?? '', caller);
        if (caller.cookie.wanted) caller.cookie.clear();
        return { ok: true as const };
      },
    }),
    defineOperation({
      id: 'auth.changePassword',
      summary: 'Change own password',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/password',
      input: PasswordChangeSchema,
      output: Session,
      handler: async (input, caller) => {
        auth.consoleOnly(caller.user);
        await users.changeOwnPassword(caller.user, input, caller);
        return withSessionCookie(auth, caller, await auth.renew(caller.token ?? ''));
      },
    }),
  ];
}
