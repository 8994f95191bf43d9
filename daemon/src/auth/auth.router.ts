import { LoginRequestSchema, PasswordChangeSchema } from '../../../shared/src/index.js';
import type { AuthService, OwnPasswordChange } from './auth.service.js';
import { operatorProcedure, publicProcedure, router } from '../http/index.js';

/** tRPC `auth.*`: sign in, who am I, renew before `expires_at`, sign out, change one's own password (answers a new token). */
export function authRouter(auth: AuthService, users: OwnPasswordChange) {
  return router({
    login: publicProcedure.input(LoginRequestSchema).mutation(({ input, ctx }) => auth.login(input, ctx.ip)),
    me: operatorProcedure.query(({ ctx }) => ctx.user),
    renew: operatorProcedure.mutation(({ ctx }) => auth.renew(ctx.token ?? '')),
    logout: operatorProcedure.mutation(async ({ ctx }) => {
      await auth.logout(ctx.token ?? '', ctx);
      return { ok: true as const };
    }),
    changePassword: operatorProcedure.input(PasswordChangeSchema).mutation(async ({ input, ctx }) => {
      auth.consoleOnly(ctx.user);
      await users.changeOwnPassword(ctx.user, input, ctx);
      return auth.renew(ctx.token ?? '');
    }),
  });
}
