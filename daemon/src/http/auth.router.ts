import { LoginRequestSchema } from '../../../shared/src/index.js';
import type { AuthService } from '../auth/index.js';
import { operatorProcedure, publicProcedure, router } from './trpc.js';

/** tRPC `auth.*`: sign in, who am I, renew before `expires_at`. */
export function authRouter(auth: AuthService) {
  return router({
    login: publicProcedure.input(LoginRequestSchema).mutation(({ input, ctx }) => auth.login(input, ctx.ip)),
    me: operatorProcedure.query(({ ctx }) => ctx.user),
    renew: operatorProcedure.mutation(({ ctx }) => auth.renew(ctx.user)),
  });
}
