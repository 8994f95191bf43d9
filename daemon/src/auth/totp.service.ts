import { createHash, randomInt } from 'node:crypto';
import jwt from 'jsonwebtoken';
import * as OTPAuth from 'otpauth';
import qrcode from 'qrcode-generator';
import type { LoginChallenge, SessionUser, TotpEnabled, TotpEnrollment, TotpStatus } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { SecretBox, SettingsService } from '../settings/index.js';
import type { TotpRepo, UserRecord } from '../store/index.js';

const ISSUER = 'SAC';
const PERIOD_S = 30;
/** Codes of the previous and next 30-second step are accepted too (clock drift). */
const WINDOW = 1;
const RECOVERY_CODES = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const SECRET_CONTEXT = 'auth.totp_secret';
/** Lifetime of the ticket between the password step and the code step. */
const LOGIN_TICKET_TTL_MS = 5 * 60_000;
const TICKET_AUDIENCE = 'sac-login-second-factor';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function recoveryCode(): string {
  const part = () => Array.from({ length: 4 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${part()}-${part()}-${part()}`;
}

function totpFor(secretBase32: string, label: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD_S, secret: OTPAuth.Secret.fromBase32(secretBase32) });
}

/** What a verified sign-in ticket says. */
export interface TicketClaims {
  userId: string;
  tokenVersion: number;
  step: LoginChallenge['second_factor'];
}

/**
 * TOTP second factor (RFC 6238 through `otpauth`): enrolment with an otpauth URI and QR code
 * confirmed by a first code, verification that refuses a replayed code (the last accepted time
 * step is stored per user and only a later one is accepted, atomically), single-use recovery
 * codes stored as SHA-256, the `security.require_totp` policy, and the short-lived signed ticket
 * that carries a user from the password step to the code step.
 */
export class TotpService {
  constructor(
    private readonly deps: {
      repo: TotpRepo;
      box: SecretBox;
      settings: SettingsService;
      clock: Clock;
      audit: Pick<AuditService, 'record'>;
      /** Signing key of the tickets (the session token secret; a different audience keeps them apart). */
      ticketSecret: string;
    },
  ) {}

  async required(user: Pick<UserRecord, 'role'>): Promise<boolean> {
    const { require_totp } = await this.deps.settings.get('security');
    return require_totp === 'all' || (require_totp === 'admins' && user.role === 'admin');
  }

  /** The second step this user's sign-in needs, or null (password alone suffices). */
  async challenge(user: UserRecord): Promise<LoginChallenge | null> {
    const record = await this.deps.repo.get(user.id);
    const step = record?.enabled ? 'totp' : (await this.required(user)) ? 'enroll' : null;
    if (!step) return null;
    const nowS = Math.floor(this.deps.clock.now() / 1000);
    const exp = nowS + LOGIN_TICKET_TTL_MS / 1000;
    const ticket = jwt.sign({ sub: user.id, tv: user.token_version, step, iat: nowS, exp }, this.deps.ticketSecret, {
      algorithm: 'HS256',
      issuer: 'sac',
      audience: TICKET_AUDIENCE,
    });
    return { second_factor: step, ticket, expires_at: new Date(exp * 1000).toISOString() };
  }

  /** The claims of a valid, unexpired ticket; throws `auth/invalid_ticket` otherwise. */
  verifyTicket(ticket: string, step: TicketClaims['step']): TicketClaims {
    try {
      const p = jwt.verify(ticket, this.deps.ticketSecret, {
        algorithms: ['HS256'],
        issuer: 'sac',
        audience: TICKET_AUDIENCE,
        clockTimestamp: Math.floor(this.deps.clock.now() / 1000),
      });
      if (typeof p === 'object' && typeof p.sub === 'string' && typeof p.tv === 'number' && p.step === step) {
        return { userId: p.sub, tokenVersion: p.tv, step };
      }
    } catch {
      // any failure is the same answer
    }
    throw new AppError('auth/invalid_ticket', 'The sign-in step expired; sign in again');
  }

  async status(user: SessionUser): Promise<TotpStatus> {
    const record = await this.deps.repo.get(user.id);
    return {
      enabled: record?.enabled === true,
      recovery_codes_left: record?.enabled ? record.recovery_hashes.length : 0,
      required: await this.required(user),
    };
  }

  /** Starts (or restarts) enrolment: a fresh secret, kept encrypted and pending until confirmed. */
  async begin(user: Pick<UserRecord, 'id' | 'username'>): Promise<TotpEnrollment> {
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    const stored = await this.deps.repo.putPending({
      user_id: user.id,
      secret: this.deps.box.encrypt(secret, SECRET_CONTEXT),
      enabled: false,
      last_step: 0,
      recovery_hashes: [],
      created_ms: this.deps.clock.now(),
      enabled_ms: null,
    });
    if (!stored) throw new AppError('auth/totp_already_enabled', 'Two-factor sign-in is already on; turn it off first');
    const uri = totpFor(secret, user.username).toString();
    const qr = qrcode(0, 'M');
    qr.addData(uri);
    qr.make();
    return { otpauth_uri: uri, secret, qr_svg: qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true }) };
  }

  /** Confirms enrolment with a first code; answers the recovery codes (shown once). */
  async confirm(user: Pick<UserRecord, 'id' | 'username'>, code: string, actor: Actor): Promise<TotpEnabled> {
    const record = await this.deps.repo.get(user.id);
    if (!record || record.enabled) throw new AppError('auth/totp_not_pending', 'Start the enrolment first');
    const step = this.matchingStep(record.secret, user.username, code);
    const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
    if (step === null || !(await this.deps.repo.enable(user.id, step, codes.map(sha256), this.deps.clock.now()))) {
      throw new AppError('auth/wrong_code', 'Wrong or already used code');
    }
    await this.deps.audit.record({ action: 'auth.totp_enabled', actor, target: `user:${user.id}` });
    return { recovery_codes: codes };
  }

  /** Checks a sign-in code: a TOTP code of a step later than the last accepted one, or an unused recovery code. */
  async verify(user: Pick<UserRecord, 'id' | 'username'>, code: string): Promise<'totp' | 'recovery' | null> {
    const record = await this.deps.repo.get(user.id);
    if (!record?.enabled) return null;
    const trimmed = code.trim();
    if (/^\d{6}$/.test(trimmed)) {
      const step = this.matchingStep(record.secret, user.username, trimmed);
      return step !== null && (await this.deps.repo.useStep(user.id, step)) ? 'totp' : null;
    }
    return (await this.deps.repo.useRecoveryCode(user.id, sha256(trimmed.toLowerCase()))) ? 'recovery' : null;
  }

  /** Turns the second factor off (own account); the caller has checked a code under the sign-in throttle (`AuthService.disableSecondFactor`). */
  async disable(user: SessionUser, actor: Actor): Promise<TotpStatus> {
    await this.deps.repo.remove(user.id);
    await this.deps.audit.record({ action: 'auth.totp_disabled', actor, target: `user:${user.id}` });
    return this.status(user);
  }

  /** An admin removes a user's second factor (lost device and recovery codes). */
  async reset(userId: string, actor: Actor): Promise<void> {
    await this.deps.repo.remove(userId);
    await this.deps.audit.record({ action: 'auth.totp_reset', actor, target: `user:${userId}` });
  }

  /** The time step the code belongs to (within the drift window), or null. */
  private matchingStep(sealedSecret: string, username: string, code: string): number | null {
    const now = this.deps.clock.now();
    const delta = totpFor(this.deps.box.decrypt(sealedSecret, SECRET_CONTEXT), username).validate({ token: code, timestamp: now, window: WINDOW });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
  }
}
