import { z } from 'zod';
import type { LoginResponse } from './users.schema.js';
import { trimmedMatch } from './trimmed-text.js';

/** A six-digit TOTP code or a recovery code (`xxxx-xxxx-xxxx`). */
export const SecondFactorCodeSchema = trimmedMatch(/^(\d{6}|[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4})$/, 64, 'must be a 6-digit code or a recovery code');

const SixDigitCode = trimmedMatch(/^\d{6}$/, 64, 'must be a 6-digit code');

export const TotpCodeSchema = z.strictObject({ code: SixDigitCode });

/** Second sign-in step: the ticket the password step answered and a TOTP or recovery code. */
export const LoginSecondFactorSchema = z.strictObject({
  ticket: z.string().min(1).max(2048),
  code: SecondFactorCodeSchema,
});

/** Enrolment during sign-in when TOTP is required and the user has none yet. */
export const LoginEnrollSchema = z.strictObject({ ticket: z.string().min(1).max(2048) });
export const LoginEnrollConfirmSchema = z.strictObject({
  ticket: z.string().min(1).max(2048),
  code: SixDigitCode,
});

/** What the password step answers when a second step follows instead of a session. */
export interface LoginChallenge {
  /** `totp`: ask for a code; `enroll`: TOTP is required and the user must enrol first. */
  second_factor: 'totp' | 'enroll';
  ticket: string;
  expires_at: string;
}

export type LoginResult = LoginResponse | LoginChallenge;

/** A started enrolment: the secret as an otpauth URI and QR code (SVG), confirmed by a first code. */
export interface TotpEnrollment {
  otpauth_uri: string;
  secret: string;
  qr_svg: string;
}

/** Confirmed enrolment: recovery codes, shown once. */
export interface TotpEnabled {
  recovery_codes: string[];
}

export interface TotpStatus {
  enabled: boolean;
  recovery_codes_left: number;
  required: boolean;
}

export const TotpDisableSchema = z.strictObject({ code: SecondFactorCodeSchema });

/** A one-time code the user sends to the bot (`/link <code>`) to link their Telegram account. */
export interface TelegramLinkCode {
  code: string;
  expires_at: string;
  bot_command: string;
}

export interface TelegramLinkStatus {
  linked: boolean;
  telegram_username: string | null;
  linked_at: string | null;
}
