import { z } from 'zod';
import { LoginEnrollConfirmSchema, LoginEnrollSchema, LoginSecondFactorSchema, TotpCodeSchema, TotpDisableSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import { withSessionCookie } from './auth.operations.js';
import type { AuthService } from './auth.service.js';
import type { TotpService } from './totp.service.js';

const SignedIn = z.looseObject({});
const Status = z.looseObject({ enabled: z.boolean(), recovery_codes_left: z.number(), required: z.boolean() });
const THROTTLED = { '503': 'Sign-in queue full; retry later' };

/**
 * Two-factor sign-in: the second sign-in step (public, throttled like the password step), one's
 * own enrolment, and an admin's reset of a user's factor.
 */
export function totpOperations(auth: AuthService, totp: TotpService) {
  return [
    defineOperation({
      id: 'totp.loginVerify',
      summary: 'Second sign-in step: a TOTP or recovery code',
      role: 'public',
      method: 'POST',
      path: '/api/v1/auth/login/totp',
      input: LoginSecondFactorSchema,
      output: SignedIn,
      errors: THROTTLED,
      handler: async (input, caller) => withSessionCookie(auth, caller, await auth.loginSecondFactor(input, caller.ip)),
    }),
    defineOperation({
      id: 'totp.loginEnroll',
      summary: 'Second sign-in step of a user who must enrol: the new secret',
      role: 'public',
      method: 'POST',
      path: '/api/v1/auth/login/enroll',
      input: LoginEnrollSchema,
      output: SignedIn,
      errors: THROTTLED,
      handler: (input, caller) => auth.loginEnroll(input, caller.ip),
    }),
    defineOperation({
      id: 'totp.loginEnrollConfirm',
      summary: 'Confirm the enrolment with a first code and sign in',
      role: 'public',
      method: 'POST',
      path: '/api/v1/auth/login/enroll/confirm',
      input: LoginEnrollConfirmSchema,
      output: SignedIn,
      errors: THROTTLED,
      handler: async (input, caller) => withSessionCookie(auth, caller, await auth.loginEnrollConfirm(input, caller.ip)),
    }),
    defineOperation({
      id: 'totp.status',
      summary: 'One’s two-factor state',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      path: '/api/v1/auth/totp',
      output: Status,
      handler: (_input, caller) => totp.status(caller.user),
    }),
    defineOperation({
      id: 'totp.enroll',
      summary: 'Begin one’s enrolment: a new secret',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/totp/enroll',
      output: z.looseObject({ otpauth_uri: z.string(), secret: z.string(), qr_svg: z.string() }),
      errors: { '409': 'Two-factor sign-in is already on' },
      handler: (_input, caller) => totp.begin(caller.user),
    }),
    defineOperation({
      id: 'totp.confirm',
      summary: 'Confirm one’s enrolment with a first code',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/totp/confirm',
      input: TotpCodeSchema,
      output: z.looseObject({ recovery_codes: z.array(z.string()) }),
      errors: { '409': 'No enrolment started' },
      handler: (input, caller) => totp.confirm(caller.user, input.code, caller),
    }),
    defineOperation({
      id: 'totp.disable',
      summary: 'Turn one’s second factor off (with a code)',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/totp/disable',
      input: TotpDisableSchema,
      output: Status,
      handler: (input, caller) => auth.disableSecondFactor(caller.user, input.code, caller),
    }),
    defineOperation({
      id: 'totp.reset',
      summary: 'Reset a user’s second factor',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/users/{user_id}/totp/reset',
      status: 204,
      input: z.strictObject({ user_id: z.string().min(1).max(64) }),
      output: z.strictObject({ ok: z.literal(true) }),
      handler: async (input, caller) => {
        await totp.reset(input.user_id, caller);
        return { ok: true as const };
      },
    }),
  ];
}
