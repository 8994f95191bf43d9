import { randomUUID } from 'node:crypto';
import type { PasswordChange, SessionUser, UserCreate, UserPatchInput, UserView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { LoginThrottleRepo, UserChange, UserPatch, UserRecord, UsersRepo } from '../store/index.js';

/** A user as the API shows it; `lockedUntilMs`: the sign-in lock in force, if any. */
export function userView(u: UserRecord, lockedUntilMs: number | null = null): UserView {
  return {
    id: u.id,
    username: u.username,
    display_name: u.display_name,
    role: u.role,
    active: u.active,
    created_at: new Date(u.created_ms).toISOString(),
    updated_at: new Date(u.updated_ms).toISOString(),
    last_login_at: u.last_login_ms === null ? null : new Date(u.last_login_ms).toISOString(),
    locked_until: lockedUntilMs === null ? null : new Date(lockedUntilMs).toISOString(),
  };
}

function checkPassword(password: string, username: string): void {
  const problem = passwordProblem(password, username);
  if (problem) throw new AppError('user/weak_password', `Password ${problem}`, { details: [{ path: 'password', message: problem }] });
}

function changed(result: UserChange): UserRecord {
  if (result.status === 'not_found') throw new AppError('user/not_found', 'No such user');
  if (result.status === 'last_admin') {
    throw new AppError('user/last_admin', 'The last active admin cannot be removed, deactivated or demoted');
  }
  return result.user;
}

/**
 * Console users (admin operations): create, edit, reset password, delete, and the first-start
 * admin. Every change is audited and announced to `onChange` listeners (the authenticator's cache).
 */
export class UsersService {
  private readonly listeners: ((userId: string) => void)[] = [];

  constructor(
    private readonly repo: UsersRepo,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    /** Sign-in locks, keyed by lower-cased username: shown with each user, lifted by an admin. */
    private readonly throttle: Pick<LoginThrottleRepo, 'locksOf' | 'unlock'>,
  ) {}

  /** Called after any change to a user, before the changing call returns. */
  onChange(listener: (userId: string) => void): void {
    this.listeners.push(listener);
  }

  async list(): Promise<UserView[]> {
    return this.withLocks(await this.repo.list());
  }

  async byId(id: string): Promise<UserView> {
    const user = await this.repo.byId(id);
    if (!user) throw new AppError('user/not_found', 'No such user');
    return (await this.withLocks([user]))[0];
  }

  /** Lifts a user's sign-in lock and forgets their failed attempts (audited, also when no lock was in force). */
  async unlock(id: string, actor: Actor): Promise<UserView> {
    const user = await this.repo.byId(id);
    if (!user) throw new AppError('user/not_found', 'No such user');
    const until = await this.throttle.unlock(user.username.toLowerCase(), this.clock.now());
    await this.audit.record({
      action: 'user.unlocked',
      actor,
      target: `user:${id}`,
      details: { username: user.username, locked_until: until === null ? null : new Date(until).toISOString() },
    });
    return userView(user);
  }

  private async withLocks(users: UserRecord[]): Promise<UserView[]> {
    const locks = await this.throttle.locksOf(users.map((u) => u.username.toLowerCase()), this.clock.now());
    return users.map((u) => userView(u, locks.get(u.username.toLowerCase()) ?? null));
  }

  async create(input: UserCreate, actor: Actor): Promise<UserView> {
    checkPassword(input.password, input.username);
    const now = this.clock.now();
    const user: UserRecord = {
      id: randomUUID(),
      username: input.username,
      display_name: input.display_name ?? null,
      role: input.role,
      active: true,
      password_hash: await hashPassword(input.password),
      token_version: 0,
      created_ms: now,
      updated_ms: now,
      last_login_ms: null,
    };
    if ((await this.repo.insert(user)) === 'duplicate') {
      throw new AppError('user/duplicate', 'A user with this username exists');
    }
    await this.audit.record({ action: 'user.created', actor, target: `user:${user.id}`, details: { username: user.username, role: user.role } });
    return (await this.withLocks([user]))[0];
  }

  async update(id: string, input: UserPatchInput, actor: Actor): Promise<UserView> {
    const patch: UserPatch = { updated_ms: this.clock.now() };
    if (input.role !== undefined) patch.role = input.role;
    if (input.active !== undefined) patch.active = input.active;
    if (input.display_name !== undefined) patch.display_name = input.display_name;
    if (input.password !== undefined) {
      const existing = await this.repo.byId(id);
      if (!existing) throw new AppError('user/not_found', 'No such user');
      checkPassword(input.password, existing.username);
      patch.password_hash = await hashPassword(input.password);
    }
    const user = changed(await this.repo.update(id, patch));
    this.announce(id);
    const fields = Object.keys(input).filter((k) => input[k as keyof UserPatchInput] !== undefined);
    await this.audit.record({
      action: input.password !== undefined ? 'user.password_reset' : 'user.updated',
      actor,
      target: `user:${id}`,
      details: { username: user.username, fields, ...(input.role ? { role: input.role } : {}), ...(input.active !== undefined ? { active: input.active } : {}) },
    });
    return (await this.withLocks([user]))[0];
  }

  async delete(id: string, actor: Actor): Promise<void> {
    const user = changed(await this.repo.delete(id));
    this.announce(id);
    await this.audit.record({ action: 'user.deleted', actor, target: `user:${id}`, details: { username: user.username } });
  }

  /** A signed-in user changes their own password; their other sessions end (the caller issues a new token). */
  async changeOwnPassword(self: SessionUser, input: PasswordChange, actor: Actor): Promise<void> {
    const user = await this.repo.byId(self.id);
    if (!user || !user.active) throw new AppError('auth/unauthorized', 'Sign in first');
    if (!(await verifyPassword(input.current_password, user.password_hash))) {
      await this.audit.record({ action: 'user.password_changed', actor, target: `user:${user.id}`, outcome: 'failed', details: { reason: 'wrong_current_password' } });
      throw new AppError('user/wrong_password', 'The current password is wrong', { details: [{ path: 'current_password', message: 'is wrong' }] });
    }
    checkPassword(input.new_password, user.username);
    changed(await this.repo.update(user.id, { password_hash: await hashPassword(input.new_password), updated_ms: this.clock.now() }));
    this.announce(user.id);
    await this.audit.record({ action: 'user.password_changed', actor, target: `user:${user.id}`, details: { username: user.username } });
  }

  /**
   * First start: with no user at all, creates the admin with `password`, or a generated one that
   * is returned so it can be shown once. A concurrent start creating it too is harmless.
   */
  async ensureFirstAdmin(username: string, password: string | undefined): Promise<{ generated: string | null }> {
    if ((await this.repo.count()) > 0) return { generated: null };
    const secret = password ?? generatePassword();
    checkPassword(secret, username);
    const now = this.clock.now();
    const outcome = await this.repo.insert({
      id: randomUUID(),
      username,
      display_name: null,
      role: 'admin',
      active: true,
      password_hash: await hashPassword(secret),
      token_version: 0,
      created_ms: now,
      updated_ms: now,
      last_login_ms: null,
    });
    if (outcome === 'inserted') {
      await this.audit.record({ action: 'user.created', actor: { user: null, ip: undefined }, username, target: null, details: { username, role: 'admin', first_start: true } });
    }
    return { generated: outcome === 'inserted' && password === undefined ? secret : null };
  }

  private announce(userId: string): void {
    for (const listener of this.listeners) listener(userId);
  }
}
