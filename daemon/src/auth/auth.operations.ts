import { z } from 'zod';
import { LoginRequestSchema, PasswordChangeSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { AuthService, OwnPasswordChange } from './auth.service.js';

const SessionUser = z.looseObject({ id: z.string(), username: z.string(), role: z.string() });
const Session = z.looseObject({ token: z.string(), expires_at: z.string(), user: SessionUser });

/**
 * Console sign-in: sign in (public; a session token, or a second-factor challenge), who am I,
 * renew before `expires_at`, sign out (revokes the session on the server), change one's own
 * password (answers a new token).
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
      handler: (input, caller) => auth.login(input, caller.ip),
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
      id: 'auth.renew',
      summary: 'Renew the session token',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/renew',
      output: Session,
      handler: (_input, caller) => auth.renew(caller.token ?? ''),
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
        return auth.renew(caller.token ?? '');
      },
    }),
  ];
}
