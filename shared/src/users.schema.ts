import { z } from 'zod';
import { ROLES, type Role, type SessionUser } from './roles.js';
import { trimmedText } from './trimmed-text.js';

/** Password length bounds (the daemon also rejects a built-in list of common passwords). */
export const PASSWORD_LIMITS = { min: 12, max: 256 } as const;

/** Usernames: 1–64 characters of letters, digits, `.`, `_`, `@`, `-`, starting with a letter or digit. Case-insensitive. */
export const UsernameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'must be 1–64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit');

export const PasswordSchema = z
  .string()
  .min(PASSWORD_LIMITS.min, `must be at least ${PASSWORD_LIMITS.min} characters`)
  .max(PASSWORD_LIMITS.max, `must be at most ${PASSWORD_LIMITS.max} characters`);

const DisplayNameSchema = trimmedText(128).nullable();

/** `POST /api/v1/auth/login` body. Lengths are bounded only loosely: a wrong password is a 401, not a 400. */
export const LoginRequestSchema = z.strictObject({
  username: z.string().min(1, 'is required').max(256),
  password: z.string().min(1, 'is required').max(1024),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

/** `POST /api/v1/auth/password` body: a signed-in user changes their own password. */
export const PasswordChangeSchema = z.strictObject({
  current_password: z.string().min(1, 'is required').max(1024),
  new_password: PasswordSchema,
});
export type PasswordChange = z.infer<typeof PasswordChangeSchema>;

/** `POST /api/v1/users` body. */
export const UserCreateSchema = z.strictObject({
  username: UsernameSchema,
  password: PasswordSchema,
  role: z.enum(ROLES),
  display_name: DisplayNameSchema.optional(),
});
export type UserCreate = z.infer<typeof UserCreateSchema>;

/** `PATCH /api/v1/users/{id}` body: at least one field. A new password ends the user's sessions. */
export const UserPatchSchema = z
  .strictObject({
    role: z.enum(ROLES).optional(),
    active: z.boolean().optional(),
    display_name: DisplayNameSchema.optional(),
    password: PasswordSchema.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), 'must change at least one field');
export type UserPatchInput = z.infer<typeof UserPatchSchema>;

/** A console user as the API shows it (never the password hash). */
export interface UserView {
  id: string;
  username: string;
  display_name: string | null;
  role: Role;
  active: boolean;
  created_at: string;
  updated_at: string;
  /** The latest sign-in that started a session; null = never. */
  last_login_at: string | null;
  /** Until when sign-in is locked for this user after repeated failures (an admin can lift it); null = not locked. */
  locked_until: string | null;
}

/** Answer of sign-in and renewal. */
export interface LoginResponse {
  token: string;
  /** RFC 3339; renew before it (`POST /api/v1/auth/renew` or `auth.renew`). */
  expires_at: string;
  user: SessionUser;
  /** The session's CSRF token: the web console sends it as `X-CSRF-Token` with writes authenticated by the session cookie. */
  csrf_token: string;
}
