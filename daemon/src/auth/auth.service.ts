import type { Logger } from 'pino';
import type { LoginRequest, LoginResponse, LoginResult, PasswordChange, SessionUser, TotpEnrollment, TotpStatus } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Facts } from '../facts.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomBase62 } from '../random.js';
import type { LoginThrottleRepo, LoginThrottleState, SessionRecord, SessionsRepo, UserRecord, UsersRepo } from '../store/index.js';
import { AddressFailures, failuresInWindow, retryAfterSeconds, type ThrottlePolicy } from './auth.rules.js';
import type { Authenticator, TokenSession } from '../http/index.js';
import { DUMMY_HASH, verifyPassword } from './passwords.js';
import type { DeviceClaim, SessionTokens } from './tokens.js';
import type { TicketClaims, TotpService } from './totp.service.js';

/** Says whether a mobile device's access token may still be used (the device is enrolled, for that user and enrollment). */
export interface DeviceGate {
  accepts(device: DeviceClaim, userId: string): Promise<boolean>;
}

/** Changes a signed-in user's own password (the users feature does; sign-in only renews the token after). */
export interface OwnPasswordChange {
  changeOwnPassword(self: SessionUser, input: PasswordChange, actor: Actor): Promise<void>;
}

/** How long an authenticated token is trusted without re-reading its user and session (a local change clears it at once). */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX = 20_000;

export interface AuthPolicy extends ThrottlePolicy {
  /** Failed sign-ins per source address within `windowMs` before that address gets 429. */
  addressMaxFailures: number;
  /** Sign-ins in progress (waiting for or running the password hash) before further ones get 503. */
  queueLimit: number;
  /** Lifetime of a session from its sign-in; renewals do not extend it. */
  absoluteMs: number;
}

function sessionUser(u: UserRecord): SessionUser {
  return { id: u.id, username: u.username, role: u.role };
}

/** Wrong-credential answers name the attempts left before the lock once this few remain. */
const WARN_ATTEMPTS_LEFT = 2;

function tooManyAttempts(retryAfterS: number): AppError {
  return new AppError('auth/too_many_attempts', 'Too many failed sign-ins; try again later', {
    details: { retry_after_s: retryAfterS },
  });
}

const unauthorized = () => new AppError('auth/unauthorized', 'Sign in first');

/** One credential check under the throttle: `failed` records a wrong one and answers the attempts left before the lock. */
interface Attempt {
  failed(reason: string): Promise<number>;
  recheck(): Promise<LoginThrottleState | null>;
}

/** `{ attempts_left }` once few remain (0: this failure locked the name), so the sign-in page can warn. */
function attemptsLeftDetails(left: number): { details?: { attempts_left: number } } {
  return left <= WARN_ATTEMPTS_LEFT ? { details: { attempts_left: left } } : {};
}

/**
 * Console sign-in: password check with per-username lock and per-address bound, server-side
 * sessions with an absolute lifetime, renewal, sign-out, and the `Authenticator` every protected
 * route uses (active user, current password, live session).
 *
 * Throttling holds under concurrency: an attempt reserves its place per username and per address
 * before the password is hashed (the store's failures plus this daemon's attempts still hashing
 * must stay below the limit), the lock is re-read after hashing, and at most `queueLimit` sign-ins
 * wait for the hash at once. Daemons sharing a store see each other's recorded failures and locks;
 * attempts in flight on another daemon are not counted, so the bound there is per daemon.
 */
export class AuthService implements Authenticator {
  private readonly cache = new Map<string, { user: SessionUser; until: number }>();
  private readonly addresses: AddressFailures;
  /** Attempts per username (lower-cased) of this daemon between reservation and outcome. */
  private readonly pending = new Map<string, number>();
  private inFlight = 0;
  private readonly signOutListeners: ((sessionId: string) => void)[] = [];

  constructor(
    private readonly deps: {
      users: UsersRepo;
      throttle: LoginThrottleRepo;
      sessions: SessionsRepo;
      tokens: SessionTokens;
      audit: AuditService;
      facts: Pick<Facts, 'publish'>;
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
    // Each waiting sign-in holds a request and, once hashing, 128 MiB: past the bound, answer at once.
    if (this.inFlight >= this.deps.policy.queueLimit) {
      throw new AppError('auth/busy', 'Too many sign-ins at once; try again shortly', { kind: 'operational', details: { retry_after_s: 1 } });
    }
    this.inFlight++;
    try {
      return await this.attempt(input, ip);
    } finally {
      this.inFlight--;
    }
  }

  private async attempt(input: LoginRequest, ip: string | undefined): Promise<LoginResult> {
    const { users, throttle, audit } = this.deps;
    return this.reserved(input.username, ip, async (attempt) => {
      const user = await users.byUsername(input.username);
      // An unknown user costs the same scrypt as a known one, so timing does not reveal usernames.
      const passwordOk = await verifyPassword(input.password, user?.password_hash ?? DUMMY_HASH);
      if (!user || !passwordOk || !user.active) {
        const left = await attempt.failed(!user ? 'unknown_user' : !passwordOk ? 'wrong_password' : 'inactive');
        throw new AppError('auth/invalid_credentials', 'Wrong username or password', attemptsLeftDetails(left));
      }
      const after = await attempt.recheck();
      // With a second step the failures stay until it succeeds: a known password must not reset the count for code guesses.
      const challenge = await this.deps.secondFactor?.challenge(user);
      if (challenge) return challenge;
      if (after && after.failures_ms.length > 0) await throttle.clear(input.username.toLowerCase());
      const session = sessionUser(user);
      await audit.record({ action: 'auth.login_succeeded', actor: { user: session, ip }, target: `user:${user.id}` });
      return await this.startSession(user, ip);
    });
  }

  /**
   * Runs one credential check (password or second-step code) for `username` from `ip` under the
   * throttle. It reserves its place per address and per username before `check` runs: the store's
   * failures plus this daemon's checks in progress must stay below the limits, taken with no await
   * in between so parallel attempts see each other. `check` reports a wrong credential through
   * `failed` (recorded, audited, locking at the limit) and, after a right one, re-reads the lock
   * through `recheck` (a parallel attempt, here or on another daemon, may have locked the name).
   */
  private async reserved<T>(
    username: string,
    ip: string | undefined,
    check: (attempt: Attempt) => Promise<T>,
  ): Promise<T> {
    const { throttle, audit, clock, policy } = this.deps;
    const actor: Actor = { user: null, ip };
    const now = clock.now();
    const key = username.toLowerCase();
    const address = ip ?? 'unknown';
    const audited = (reason: string) => audit.record({ action: 'auth.login_failed', actor, username, outcome: 'failed', details: { reason } });

    const addressWaitMs = this.addresses.reserve(address, now);
    if (addressWaitMs > 0) {
      await audited('address_throttled');
      throw tooManyAttempts(retryAfterSeconds(now + addressWaitMs, now));
    }
    let wrong = false;
    try {
      const state = await throttle.state(key);
      if (state?.locked_until_ms != null && state.locked_until_ms > now) {
        await audited('locked');
        throw tooManyAttempts(retryAfterSeconds(state.locked_until_ms, now));
      }
      // Reserve: checked and taken with no await in between, so parallel attempts see each other.
      const recorded = state ? failuresInWindow(state.failures_ms, now, policy.windowMs) : 0;
      const inFlight = this.pending.get(key) ?? 0;
      if (recorded + inFlight >= policy.maxFailures) {
        await audited('throttled');
        const oldest = Math.min(...(state?.failures_ms ?? []).filter((t) => t > now - policy.windowMs));
        throw tooManyAttempts(inFlight > 0 ? 1 : retryAfterSeconds(oldest + policy.windowMs, now));
      }
      this.pending.set(key, inFlight + 1);
      try {
        return await check({
          failed: async (reason) => {
            wrong = true;
            const failures = await throttle.recordFailure(key, now, policy.maxFailures);
            await audited(reason);
            const counted = failuresInWindow(failures, now, policy.windowMs);
            if (counted >= policy.maxFailures) await this.lock(key, username, ip, now);
            return Math.max(0, policy.maxFailures - counted);
          },
          recheck: async () => {
            const after = await throttle.state(key);
            const afterNow = clock.now();
            if (after?.locked_until_ms != null && after.locked_until_ms > afterNow) {
              await audited('locked');
              throw tooManyAttempts(retryAfterSeconds(after.locked_until_ms, afterNow));
            }
            return after;
          },
        });
      } finally {
        const left = (this.pending.get(key) ?? 1) - 1;
        if (left > 0) this.pending.set(key, left);
        else this.pending.delete(key);
      }
    } finally {
      this.addresses.settle(address, now, wrong);
    }
  }

  /**
   * The second sign-in step: the ticket of the password step and a TOTP or recovery code, checked
   * under the same reservation as the password step (per username and per address), so parallel
   * wrong codes cannot all be evaluated before the first failure is recorded.
   */
  async loginSecondFactor(input: { ticket: string; code: string }, ip: string | undefined): Promise<LoginResponse> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'totp'));
    return this.reserved(user.username, ip, async (attempt) => {
      const how = await totp.verify(user, input.code);
      if (!how) return this.secondStepFailed(attempt);
      await attempt.recheck();
      return this.secondStepSucceeded(user, ip, { second_factor: how });
    });
  }

  /**
   * Turns one's own second factor off after a valid code, checked under the sign-in reservation
   * (per username and per address): a stolen session cannot guess its way past the second factor.
   */
  async disableSecondFactor(user: SessionUser, code: string, actor: Actor): Promise<TotpStatus> {
    const totp = this.requireSecondFactor();
    return this.reserved(user.username, actor.ip, async (attempt) => {
      if (!(await totp.verify(user, code))) {
        await attempt.failed('wrong_code');
        throw new AppError('auth/wrong_code', 'Wrong or already used code');
      }
      await attempt.recheck();
      return totp.disable(user, actor);
    });
  }

  /** Sign-in enrolment (TOTP required, none yet): the secret and QR code for the ticket's user. */
  async loginEnroll(input: { ticket: string }, ip: string | undefined): Promise<TotpEnrollment> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'enroll'));
    const now = this.deps.clock.now();
    const addressWaitMs = this.addresses.blockedFor(ip ?? 'unknown', now);
    if (addressWaitMs > 0) throw tooManyAttempts(retryAfterSeconds(now + addressWaitMs, now));
    const state = await this.deps.throttle.state(user.username.toLowerCase());
    if (state?.locked_until_ms != null && state.locked_until_ms > now) throw tooManyAttempts(retryAfterSeconds(state.locked_until_ms, now));
    return totp.begin(user);
  }

  /** Confirms sign-in enrolment with a first code (reserved like any code): a session plus the recovery codes (shown once). */
  async loginEnrollConfirm(input: { ticket: string; code: string }, ip: string | undefined): Promise<LoginResponse & { recovery_codes: string[] }> {
    const totp = this.requireSecondFactor();
    const user = await this.ticketUser(totp.verifyTicket(input.ticket, 'enroll'));
    return this.reserved(user.username, ip, async (attempt) => {
      let codes: string[];
      try {
        codes = (await totp.confirm(user, input.code, { user: sessionUser(user), ip })).recovery_codes;
      } catch (err) {
        if (err instanceof AppError && err.code === 'auth/wrong_code') return this.secondStepFailed(attempt);
        throw err;
      }
      await attempt.recheck();
      return { ...(await this.secondStepSucceeded(user, ip, { second_factor: 'enrolled' })), recovery_codes: codes };
    });
  }

  private requireSecondFactor(): TotpService {
    if (!this.deps.secondFactor) throw new AppError('auth/invalid_ticket', 'No second sign-in step is pending');
    return this.deps.secondFactor;
  }

  /** The active user a ticket names. */
  private async ticketUser(claims: TicketClaims): Promise<UserRecord> {
    const user = await this.deps.users.byId(claims.userId);
    if (!user || !user.active || user.token_version !== claims.tokenVersion) throw new AppError('auth/invalid_ticket', 'The sign-in step expired; sign in again');
    return user;
  }

  private async secondStepFailed(attempt: Attempt): Promise<never> {
    const left = await attempt.failed('wrong_code');
    throw new AppError('auth/invalid_code', 'Wrong or already used code', attemptsLeftDetails(left));
  }

  private async secondStepSucceeded(user: UserRecord, ip: string | undefined, details: Record<string, unknown>): Promise<LoginResponse> {
    await this.deps.throttle.clear(user.username.toLowerCase());
    await this.deps.audit.record({ action: 'auth.login_succeeded', actor: { user: sessionUser(user), ip }, target: `user:${user.id}`, details });
    return this.startSession(user, ip);
  }

  /**
   * A fresh token of the same session for the token's user (the console renews before
   * `expires_at`). Never past the session's absolute end; refused once it is signed out.
   */
  async renew(token: string): Promise<LoginResponse> {
    const claims = this.deps.tokens.verify(token);
    if (!claims) throw unauthorized();
    if (claims.device) throw new AppError('auth/forbidden', 'A device renews its session with its refresh token');
    const session = await this.liveSession(claims.sessionId!, claims.userId);
    const user = session ? await this.deps.users.byId(claims.userId) : null;
    if (!session || !user || !user.active) throw unauthorized();
    return this.issue(user, session);
  }

  /** Signs out: revokes the token's session on the server, so none of its tokens works any longer. */
  async logout(token: string, actor: Actor): Promise<void> {
    const claims = this.deps.tokens.verify(token);
    if (!claims) throw unauthorized();
    if (!claims.sessionId) throw new AppError('auth/forbidden', 'A device signs out by being revoked');
    await this.deps.sessions.revoke(claims.sessionId, this.deps.clock.now());
    for (const [cached, entry] of this.cache) if (entry.user.id === claims.userId) this.cache.delete(cached);
    for (const listener of this.signOutListeners) listener(claims.sessionId);
    await this.deps.audit.record({ action: 'auth.logout', actor, target: `user:${claims.userId}` });
  }

  /**
   * Refuses a mobile device's session where the answer is a console token (own password change):
   * such a token would outlive the device's revocation.
   */
  consoleOnly(current: SessionUser): void {
    if (current.device_id) throw new AppError('auth/forbidden', 'A device renews its session with its refresh token');
  }

  /** Called with the session id of every sign-out on this daemon (open streams of it end). */
  onSignOut(listener: (sessionId: string) => void): void {
    this.signOutListeners.push(listener);
  }

  async authenticate(token: string): Promise<SessionUser | null> {
    const now = this.deps.clock.now();
    const cached = this.cache.get(token);
    if (cached && cached.until > now) return cached.user;
    const claims = this.deps.tokens.verify(token);
    if (!claims) return null;
    // A console token lives as long as its session; a device's as long as the device stays enrolled.
    const [user, live] = await Promise.all([
      this.deps.users.byId(claims.userId),
      claims.device ? Promise.resolve(true) : this.liveSession(claims.sessionId!, claims.userId).then((s) => s !== null),
    ]);
    if (!live || !user || !user.active || user.token_version !== claims.tokenVersion) return null;
    if (claims.device && !(await this.deps.devices?.accepts(claims.device, user.id))) return null;
    const result: SessionUser = claims.device ? { ...sessionUser(user), device_id: claims.device.id } : sessionUser(user);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(token, { user: result, until: Math.min(now + CACHE_TTL_MS, claims.expiresMs) });
    return result;
  }

  tokenSession(token: string): TokenSession | null {
    const claims = this.deps.tokens.verify(token);
    if (!claims) return null;
    // A device's streams end with its token (and at once on revocation, through the user's streams).
    return { sessionId: claims.sessionId ?? `device:${claims.device!.id}`, expiresMs: claims.expiresMs };
  }

  /** Forgets cached sessions; called on every user change so it takes effect at once. */
  invalidate(): void {
    this.cache.clear();
  }

  private async liveSession(sessionId: string, userId: string): Promise<SessionRecord | null> {
    const session = await this.deps.sessions.byId(sessionId);
    const ok = session && session.user_id === userId && session.revoked_ms === null && session.expires_ms > this.deps.clock.now();
    return ok ? session : null;
  }

  private async startSession(user: UserRecord, ip: string | undefined): Promise<LoginResponse> {
    const now = this.deps.clock.now();
    const session: SessionRecord = {
      id: randomBase62(32),
      user_id: user.id,
      created_ms: now,
      expires_ms: now + this.deps.policy.absoluteMs,
      revoked_ms: null,
      ip: ip ?? null,
    };
    await this.deps.sessions.insert(session);
    await this.deps.users.recordLogin(user.id, now);
    return this.issue(user, session);
  }

  private issue(user: UserRecord, session: SessionRecord): LoginResponse {
    const { token, expiresMs } = this.deps.tokens.issue(user, { sessionId: session.id, notAfterMs: session.expires_ms });
    return { token, expires_at: new Date(expiresMs).toISOString(), user: sessionUser(user), csrf_token: this.deps.tokens.csrfToken(session.id) };
  }

  /**
   * The web console's session cookie for a console token just issued: a token of the same session
   * valid until the session ends (not just the TTL), so a new tab opens signed in for as long as
   * the session lives; sign-out, revocation and a password change end it as they end the session.
   */
  async sessionCookie(token: string): Promise<{ token: string; expiresMs: number }> {
    const claims = this.deps.tokens.verify(token);
    const session = claims?.sessionId ? await this.liveSession(claims.sessionId, claims.userId) : null;
    const user = session ? await this.deps.users.byId(session.user_id) : null;
    if (!session || !user || !user.active) throw unauthorized();
    return this.deps.tokens.issue(user, { sessionId: session.id, notAfterMs: session.expires_ms, wholeSession: true });
  }

  csrfToken(token: string): string | null {
    const claims = this.deps.tokens.verify(token);
    return claims?.sessionId ? this.deps.tokens.csrfToken(claims.sessionId) : null;
  }

  /** The signed-in user, when the token (or cookie) expires and its session's CSRF token: what a new tab of the web console starts from. */
  currentSession(user: SessionUser, token: string): { user: SessionUser; expires_at: string; csrf_token: string | null } {
    const claims = this.deps.tokens.verify(token);
    if (!claims) throw unauthorized();
    return { user, expires_at: new Date(claims.expiresMs).toISOString(), csrf_token: claims.sessionId ? this.deps.tokens.csrfToken(claims.sessionId) : null };
  }

  /** Locks the username; only the call that set the lock alerts, so there is one alert per lock. */
  private async lock(key: string, username: string, ip: string | undefined, now: number): Promise<void> {
    const { throttle, facts, audit, policy, logger } = this.deps;
    const until = now + policy.lockMs;
    if (!(await throttle.lock(key, until, now))) return;
    const lockedUntil = new Date(until).toISOString();
    logger.warn({ username, ip, locked_until: lockedUntil }, 'sign-in locked after repeated failures');
    await facts.publish([{ type: 'auth.login_locked', username, ip, locked_until: lockedUntil, attempts: policy.maxFailures }], 'service');
    await audit.record({
      action: 'auth.login_locked',
      actor: { user: null, ip },
      username,
      outcome: 'denied',
      details: { locked_until: lockedUntil, attempts: policy.maxFailures },
    });
  }
}
