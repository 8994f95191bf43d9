import { z } from 'zod';
import { PushSubscriptionInputSchema } from './notify.schema.js';
import type { Role } from './roles.js';
import { trimmedText } from './trimmed-text.js';

/**
 * Enrollment codes: 10 characters from an alphabet without look-alikes (no 0/O, 1/I/L), shown
 * as two groups of five. Input may be lower-case and carry spaces or dashes.
 */
export const ENROLLMENT_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const ENROLLMENT_CODE_LENGTH = 10;
/** Code lifetime bounds in minutes; the default is 15. */
export const ENROLLMENT_TTL_MINUTES = { default: 15, min: 1, max: 7 * 24 * 60 } as const;

/** `POST /api/v1/mobile/enrollment-codes` body (admin). */
export const EnrollmentCodeCreateSchema = z.strictObject({
  user_id: z.string().min(1).max(64),
  ttl_minutes: z.number().int().min(ENROLLMENT_TTL_MINUTES.min).max(ENROLLMENT_TTL_MINUTES.max).optional(),
});
export type EnrollmentCodeCreate = z.infer<typeof EnrollmentCodeCreateSchema>;

/** The answer to issuing a code: the code itself is shown this once. */
export interface EnrollmentCodeIssued {
  id: string;
  code: string;
  expires_at: string;
  /** Absolute URL of the enrollment screen with the code (REST answers; the console builds it itself). */
  enroll_url: string;
  /** The same, relative to the console's base URL. */
  enroll_path: string;
}

export interface EnrollmentCodeView {
  id: string;
  user_id: string;
  username: string | null;
  created_at: string;
  expires_at: string;
  status: 'pending' | 'used' | 'expired' | 'revoked';
  used_by: string | null;
}

/** `POST /api/v1/mobile/enroll` body. */
export const EnrollRequestSchema = z.strictObject({
  code: z.string().min(1).max(64),
  device_uuid: z.uuid(),
  name: trimmedText(128),
  platform: trimmedText(64),
  app_version: z.string().max(64).optional(),
  push: PushSubscriptionInputSchema.optional(),
});
export type EnrollRequest = z.infer<typeof EnrollRequestSchema>;

/** `POST /api/v1/mobile/token` body: exchanges a refresh token for a new pair. */
export const TokenRefreshSchema = z.strictObject({
  refresh_token: z.string().min(1).max(256),
  app_version: z.string().max(64).optional(),
});
export type TokenRefresh = z.infer<typeof TokenRefreshSchema>;

/** `PUT /api/v1/mobile/push` body: a device (re)registers its push subscription. */
export const DevicePushSchema = z.strictObject({ push: PushSubscriptionInputSchema.nullable() });

export interface DeviceView {
  id: string;
  device_uuid: string;
  user_id: string;
  username: string | null;
  name: string;
  platform: string;
  app_version: string | null;
  status: 'enrolled' | 'revoked';
  push: boolean;
  enrolled_at: string;
  last_seen_at: string;
  revoked_at: string | null;
}

/** Enrollment and refresh answer: a short-lived access token (JWT) and a new single-use refresh token. */
export interface DeviceTokens {
  access_token: string;
  refresh_token: string;
  /** Seconds the access token is valid. */
  expires_in: number;
  device: DeviceView;
  user: { id: string; username: string; role: Role };
}
