import { z } from 'zod';
import { LoginEnrollConfirmSchema, LoginEnrollSchema, LoginSecondFactorSchema, TotpCodeSchema, TotpDisableSchema } from '../../../shared/src/index.js';
import { adminProcedure, operatorProcedure, publicProcedure, router } from '../http/index.js';
import type { AuthService } from './auth.service.js';
import type { TotpService } from './totp.service.js';

/** tRPC `totp.*`: the second sign-in step (public), one's own enrolment, and an admin's reset of a user's factor. */
export function totpRouter(auth: AuthService, totp: TotpService) {
  return router({
    loginVerify: publicProcedure.input(LoginSecondFactorSchema).mutation(({ input, ctx }) => auth.loginSecondFactor(input, ctx.ip)),
    loginEnroll: publicProcedure.input(LoginEnrollSchema).mutation(({ input, ctx }) => auth.loginEnroll(input, ctx.ip)),
    loginEnrollConfirm: publicProcedure.input(LoginEnrollConfirmSchema).mutation(({ input, ctx }) => auth.loginEnrollConfirm(input, ctx.ip)),
    status: operatorProcedure.query(({ ctx }) => totp.status(ctx.user)),
    enroll: operatorProcedure.mutation(({ ctx }) => totp.begin(ctx.user)),
    confirm: operatorProcedure.input(TotpCodeSchema).mutation(({ input, ctx }) => totp.confirm(ctx.user, input.code, ctx)),
    disable: operatorProcedure.input(TotpDisableSchema).mutation(({ input, ctx }) => auth.disableSecondFactor(ctx.user, input.code, ctx)),
    reset: adminProcedure.input(z.strictObject({ user_id: z.string().min(1).max(64) })).mutation(async ({ input, ctx }) => {
      await totp.reset(input.user_id, ctx);
      return { ok: true };
    }),
  });
}
