import type { Logger } from 'pino';
import type { LoginRequest, LoginResponse, LoginResult, SessionUser, TotpEnrollment } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { LoginThrottleRepo, UserRecord, UsersRepo } from '../store/index.js';
import { AddressFailures, failuresInWindow, retryAfterSeconds, type ThrottlePolicy } from './auth.rules.js';
import type { Authenticator } from './authenticator.js';
import { DUMMY_HASH, verifyPassword } from './passwords.js';
import type { TicketClaims, TotpService } from './totp.service.js';
import type { DeviceClaim, SessionTokens } from './tokens.js';

/** Says whether a mobile device's access token may still be used (the device is enrolled, for that user and enrollment). */
export interface DeviceGate {
  accepts(device: DeviceClaim, userId: string): Promise<boolean>;
}

/** How long an authenticated token is trusted without re-reading its user (a local change clears it at once). */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 20_000;

export interface AuthPolicy extends ThrottlePolicy {
  /** Failed sign-ins per source address within `windowMs` before that address gets 429. */
  addressMaxFailures: number;
}

function sessionUser(u: UserRecord): SessionUser {
  return { id: u.id, username: u.username, role: u.role };
}

function tooManyAttempts(retryAfterS: number): AppError {
  return new AppError('auth/too_many_attempts', 'Too many failed sign-ins; try again later', {
    details: { retry_after_s: retryAfterS },
  });
}

/**
 * Console sign-in: password check with per-username lock and per-address bound, session tokens,
 * renewal, and the `Authenticator` every protected route uses (active user, current password).
 */
export class AuthService implements Authenticator {
  private readonly cache = new Map<string, { user: SessionUser; until: number }>();
  private readonly addresses: AddressFailures;

  constructor(
    private readonly deps: {
      users: UsersRepo;
      throttle: LoginThrottleRepo;
      tokens: SessionTokens;
      audit: AuditService;
      bus: Bus;
      clock: Clock;
      policy: AuthPolicy;
      logger: Logger;
      /** TOTP second factor: when it asks for a step, the password step answers a ticket instead of a session. */
      secondFactor?: TotpService;
      /** Without it, device-bound tokens are refused. */
      devices?: DeviceGate;
    },
  ) {
    this.addresses = new AddressFailures(deps.policy.addressMaxFailures, deps.policy.windowMs);
  }

  async login(input: LoginRequest, ip: string | undefined): Promise<LoginResult> {
    const { users, throttle, audit, clock, policy } = this.deps;
    const actor: Actor = { user: null, ip };
    const now = clock.now();
    const key = input.username.toLowerCase();
    const failed = (reason: string) =>
      audit.record({ action: 'auth.login_failed', actor, username: input.username, outcome: 'failed', details: { reason } });

    const addressWaitMs = this.addresses.blockedFor(ip ?? 'unknown', now);
    if (addressWaitMs > 0) {
      await failed('address_throttled');
      throw tooManyAttempts(retryAfterSeconds(now + addressWaitMs, now));
    }
    const state = await throttle.state(key);
    if (state?.locked_until_ms != null && state.locked_until_ms > now) {
      await failed('locked');
      throw tooManyAttempts(retryAfterSeconds(state.locked_until_ms, now));
    }

    const user = await users.byUsername(input.username);
    // An unknown user costs the same scrypt as a known one, so timing does not reveal usernames.
    const passwordOk = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH);
    if (!user || !passwordOk || !user.active) {
      this.addresses.record(ip ?? 'unknown', now);
      const failures = await throttle.recordFailure(key, now, policy.maxFailures);
      await failed(!user ? 'unknown_user' : !passwordOk ? 'wrong_password' : 'inactive');
      if (failuresInWindow(failures, now, policy.windowMs) >= policy.maxFailures) await this.lock(key, input.username, ip, now);
      throw new AppError('auth/invalid_credentials', 'Wrong username or password');
    }
    // With a second step the failures stay until it succeeds: a known password must not reset the count for code guesses.
    const challenge = await this.deps.secondFactor?.challenge(user);
    if (challenge) return challenge;
    if (state && state.failures_ms.length > 0) await throttle.clear(key);
    const session = sessionUser(user);
    await audit.record({ action: 'auth.login_succeeded', actor: { user: session, ip }, target: `user:${user.id}` });
    return this.issue(user);
  }

  /**
   * The second sign-in step: the ticket of the password step and a TOTP or recovery code. The
   * same throttle as the password step: the username's lock and the address bound apply, and a
   * wrong code counts as a failed sign-in.
   */
  async loginSecondFactor(input: { ticket: string; code: string }, ip: string | undefined): Promise<LoginResponse> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'totp'), ip);
    const how = await totp.verify(user, input.code);
    if (!how) return this.secondStepFailed(user, ip);
    return this.secondStepSucceeded(user, ip, { second_factor: how });
  }

  /** Sign-in enrolment (TOTP required, none yet): the secret and QR code for the ticket's user. */
  async loginEnroll(input: { ticket: string }, ip: string | undefined): Promise<TotpEnrollment> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'enroll'), ip);
    return totp.begin(user);
  }

  /** Confirms sign-in enrolment with a first code: a session plus the recovery codes (shown once). */
  async loginEnrollConfirm(input: { ticket: string; code: string }, ip: string | undefined): Promise<LoginResponse & { recovery_codes: string[] }> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'enroll'), ip);
    let codes: string[];
    try {
      codes = (await totp.confirm(user, input.code, { user: sessionUser(user), ip })).recovery_codes;
    } catch (err) {
      if (err instanceof AppError && err.code === 'auth/wrong_code') return this.secondStepFailed(user, ip);
      throw err;
    }
    return { ...(await this.secondStepSucceeded(user, ip, { second_factor: 'enrolled' })), recovery_codes: codes };
  }

  private requireSecondFactor(): TotpService {
    if (!this.deps.secondFactor) throw new AppError('auth/invalid_ticket', 'No second sign-in step is pending');
    return this.deps.secondFactor;
  }

  /** The active user a ticket names, refused while the username or the address is throttled. */
  private async ticketUser(claims: TicketClaims, ip: string | undefined): Promise<UserRecord> {
    const { users, throttle, clock } = this.deps;
    const now = clock.now();
    const user = await users.byId(claims.userId);
    if (!user || !user.active || user.token_version !== claims.tokenVersion) throw new AppError('auth/invalid_ticket', 'The sign-in step expired; sign in again');
    const addressWaitMs = this.addresses.blockedFor(ip ?? 'unknown', now);
    if (addressWaitMs > 0) throw tooManyAttempts(retryAfterSeconds(now + addressWaitMs, now));
    const state = await throttle.state(user.username.toLowerCase());
    if (state?.locked_until_ms != null && state.locked_until_ms > now) throw tooManyAttempts(retryAfterSeconds(state.locked_until_ms, now));
    return user;
  }

  private async secondStepFailed(user: UserRecord, ip: string | undefined): Promise<never> {
    const { throttle, audit, clock, policy } = this.deps;
    const now = clock.now();
    const key = user.username.toLowerCase();
    this.addresses.record(ip ?? 'unknown', now);
    const failures = await throttle.recordFailure(key, now, policy.maxFailures);
    await audit.record({ action: 'auth.login_failed', actor: { user: null, ip }, username: user.username, outcome: 'failed', details: { reason: 'wrong_code' } });
    if (failuresInWindow(failures, now, policy.windowMs) >= policy.maxFailures) await this.lock(key, user.username, ip, now);
    throw new AppError('auth/invalid_code', 'Wrong or already used code');
  }

  private async secondStepSucceeded(user: UserRecord, ip: string | undefined, details: Record<string, unknown>): Promise<LoginResponse> {
    await this.deps.throttle.clear(user.username.toLowerCase());
    await this.deps.audit.record({ action: 'auth.login_succeeded', actor: { user: sessionUser(user), ip }, target: `user:${user.id}`, details });
    return this.issue(user);
  }

  /** A fresh token for a signed-in user (the console renews before `expires_at`). */
  async renew(current: SessionUser): Promise<LoginResponse> {
    this.consoleOnly(current);
    const user = await this.deps.users.byId(current.id);
    if (!user || !user.active) throw new AppError('auth/unauthorized', 'Sign in first');
    return this.issue(user);
  }

  /**
   * Refuses a mobile device's session where the answer is a console token (renewal, own password
   * change): such a token would outlive the device's revocation.
   */
  consoleOnly(current: SessionUser): void {
    if (current.device_id) throw new AppError('auth/forbidden', 'A device renews its session with its refresh token');
  }

  async authenticate(token: string): Promise<SessionUser | null> {
    const now = this.deps.clock.now();
    const cached = this.cache.get(token);
    if (cached && cached.until > now) return cached.user;
    const claims = this.deps.tokens.verify(token);
    if (!claims) return null;
    const user = await this.deps.users.byId(claims.userId);
    if (!user || !user.active || user.token_version !== claims.tokenVersion) return null;
    if (claims.device && !(await this.deps.devices?.accepts(claims.device, user.id))) return null;
    const session: SessionUser = claims.device ? { ...sessionUser(user), device_id: claims.device.id } : sessionUser(user);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(token, { user: session, until: Math.min(now + CACHE_TTL_MS, claims.expiresMs) });
    return session;
  }

  /** Forgets cached sessions; called on every user change so it takes effect at once. */
  invalidate(): void {
    this.cache.clear();
  }

  private issue(user: UserRecord): LoginResponse {
    const { token, expiresMs } = this.deps.tokens.issue(user);
    return { token, expires_at: new Date(expiresMs).toISOString(), user: sessionUser(user) };
  }

  /** Locks the username; only the call that set the lock alerts, so there is one alert per lock. */
  private async lock(key: string, username: string, ip: string | undefined, now: number): Promise<void> {
    const { throttle, bus, audit, policy, logger } = this.deps;
    const until = now + policy.lockMs;
    if (!(await throttle.lock(key, until, now))) return;
    const lockedUntil = new Date(until).toISOString();
    logger.warn({ username, ip, locked_until: lockedUntil }, 'sign-in locked after repeated failures');
    bus.publish({ type: 'auth.login_locked', data: { username, ip, locked_until: lockedUntil, attempts: policy.maxFailures } });
    await audit.record({
      action: 'auth.login_locked',
      actor: { user: null, ip },
      username,
      outcome: 'denied',
      details: { locked_until: lockedUntil, attempts: policy.maxFailures },
    });
  }
}
