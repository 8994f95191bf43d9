import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  ENROLLMENT_TTL_MINUTES,
  type DeviceTokens,
  type DeviceView,
  type EnrollmentCodeCreate,
  type EnrollmentCodeIssued,
  type EnrollmentCodeView,
  type EnrollRequest,
  type PushSubscriptionInput,
  type SessionUser,
  type TokenRefresh,
} from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import { AddressFailures, retryAfterSeconds, type DeviceGate, type SessionTokens } from '../auth/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { randomBase62 } from '../random.js';
import type { DeviceRecord, DevicesRepo, UserRecord, UsersRepo } from '../store/index.js';
import {
  codeStatus,
  deviceAccepts,
  formatEnrollmentCode,
  generateEnrollmentCode,
  normaliseEnrollmentCode,
  secretHash,
  transition,
} from './mobile.rules.js';

/** Where a device's push subscription lives: the notifier's subscriptions, which the push channel delivers to. */
export interface PushRegistry {
  register(input: PushSubscriptionInput, userId: string, label: string): Promise<string>;
  /** Removes it so nothing more is sent to it, also not what is already queued. */
  remove(id: string): Promise<void>;
}

export interface MobilePolicy {
  accessTtlMs: number;
  refreshTtlMs: number;
  /** Wrong codes per address within `windowMs` before that address gets 429 (the sign-in bound). */
  addressMaxFailures: number;
  windowMs: number;
}

export const DEFAULT_MOBILE_POLICY: Omit<MobilePolicy, 'addressMaxFailures' | 'windowMs'> = {
  accessTtlMs: 15 * 60_000,
  refreshTtlMs: 30 * 24 * 3600_000,
};

/** Used codes and expired ones stay listed this long, then the retention job prunes them. */
export const CODE_HISTORY_MS = 7 * 24 * 3600_000;
/** Refresh tokens: 256 bits, base62. */
const REFRESH_TOKEN_LENGTH = 43;
const REFRESH_PREFIX = 'sacr_';

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function unauthorized(): AppError {
  return new AppError('auth/unauthorized', 'The device is not signed in');
}

/**
 * Mobile clients: admin-issued enrollment codes, enrollment of a device (re-enrollment keeps its
 * record), rotating refresh tokens with reuse detection, and device revocation and deletion.
 * Access tokens are console JWTs bound to the device (see auth's `DeviceGate`).
 */
export class MobileService implements DeviceGate {
  private readonly addresses: AddressFailures;

  constructor(
    private readonly deps: {
      devices: DevicesRepo;
      users: UsersRepo;
      tokens: SessionTokens;
      audit: AuditService;
      push: PushRegistry;
      clock: Clock;
      policy: MobilePolicy;
      logger: Logger;
      /** Told after a device of the user stops being usable, so cached sessions and open streams end at once. */
      onDeviceChange: (userId: string) => void;
    },
  ) {
    this.addresses = new AddressFailures(deps.policy.addressMaxFailures, deps.policy.windowMs);
  }

  async accepts(device: { id: string; generation: number }, userId: string): Promise<boolean> {
    return deviceAccepts(await this.deps.devices.byId(device.id), userId, device.generation);
  }

  private async userNames(): Promise<Map<string, string>> {
    return new Map((await this.deps.users.list()).map((u) => [u.id, u.username]));
  }

  private view(d: DeviceRecord, names: Map<string, string>): DeviceView {
    return {
      id: d.id,
      device_uuid: d.device_uuid,
      user_id: d.user_id,
      username: names.get(d.user_id) ?? null,
      name: d.name,
      platform: d.platform,
      app_version: d.app_version,
      status: d.status,
      push: d.push_subscription_id !== null,
      enrolled_at: iso(d.enrolled_ms)!,
      last_seen_at: iso(d.last_seen_ms)!,
      revoked_at: iso(d.revoked_ms),
    };
  }

  async issueCode(input: EnrollmentCodeCreate, actor: Actor): Promise<Omit<EnrollmentCodeIssued, 'enroll_url'>> {
    const user = await this.deps.users.byId(input.user_id);
    if (!user) throw new AppError('user/not_found', 'No such user');
    if (!user.active) throw new AppError('mobile/user_inactive', 'The user is deactivated');
    const now = this.deps.clock.now();
    const code = generateEnrollmentCode();
    const expiresMs = now + (input.ttl_minutes ?? ENROLLMENT_TTL_MINUTES.default) * 60_000;
    const id = randomUUID();
    await this.deps.devices.insertCode({
      id,
      code_hash: secretHash(code),
      user_id: user.id,
      created_by: actor.user?.id ?? null,
      created_ms: now,
      expires_ms: expiresMs,
      used_ms: null,
      used_by: null,
      revoked_ms: null,
    });
    await this.deps.audit.record({ action: 'mobile.code_issued', actor, target: `user:${user.id}`, details: { code_id: id, expires_at: iso(expiresMs) } });
    const shown = formatEnrollmentCode(code);
    // The code goes in the fragment: it never reaches a server log or a Referer header.
    return { id, code: shown, expires_at: iso(expiresMs)!, enroll_path: `m/enroll#code=${shown}` };
  }

  async listCodes(): Promise<EnrollmentCodeView[]> {
    const now = this.deps.clock.now();
    const [codes, names] = await Promise.all([this.deps.devices.listCodes(), this.userNames()]);
    return codes.map((c) => ({
      id: c.id,
      user_id: c.user_id,
      username: names.get(c.user_id) ?? null,
      created_at: iso(c.created_ms)!,
      expires_at: iso(c.expires_ms)!,
      status: codeStatus(c, now),
      used_by: c.used_by,
    }));
  }

  async revokeCode(id: string, actor: Actor): Promise<void> {
    if (!(await this.deps.devices.revokeCode(id, this.deps.clock.now()))) {
      throw new AppError('mobile/code_not_found', 'No such unused enrollment code');
    }
    await this.deps.audit.record({ action: 'mobile.code_revoked', actor, target: `enrollment_code:${id}` });
  }

  async enroll(input: EnrollRequest, ip: string | undefined): Promise<DeviceTokens> {
    const now = this.deps.clock.now();
    const address = ip ?? 'unknown';
    const actor: Actor = { user: null, ip };
    const waitMs = this.addresses.blockedFor(address, now);
    if (waitMs > 0) {
      await this.deps.audit.record({ action: 'mobile.enroll_failed', actor, outcome: 'denied', details: { reason: 'address_throttled' } });
      throw new AppError('auth/too_many_attempts', 'Too many wrong codes; try again later', {
        details: { retry_after_s: retryAfterSeconds(now + waitMs, now) },
      });
    }
    const normalised = normaliseEnrollmentCode(input.code);
    const code = normalised ? await this.deps.devices.consumeCode(secretHash(normalised), now) : null;
    const user = code ? await this.deps.users.byId(code.user_id) : null;
    if (!code || !user || !user.active) {
      this.addresses.record(address, now);
      await this.deps.audit.record({ action: 'mobile.enroll_failed', actor, outcome: 'failed', details: { reason: code ? 'inactive_user' : 'invalid_code' } });
      throw new AppError('mobile/invalid_code', 'The enrollment code is wrong, used or expired');
    }
    const pushId = input.push ? await this.deps.push.register(input.push, user.id, `device: ${input.name}`) : null;
    const { device, created, previous } = await this.deps.devices.enroll({
      id: randomUUID(),
      device_uuid: input.device_uuid,
      user_id: user.id,
      name: input.name,
      platform: input.platform,
      app_version: input.app_version ?? null,
      push_subscription_id: pushId,
      now_ms: now,
    });
    if (previous?.push_subscription_id && previous.push_subscription_id !== pushId) await this.dropPush(previous.push_subscription_id);
    await this.deps.devices.markCodeUsedBy(code.id, device.id);
    if (previous) this.deps.onDeviceChange(previous.user_id);
    await this.deps.audit.record({
      action: 'mobile.device_enrolled',
      actor: { user: { id: user.id, username: user.username, role: user.role }, ip },
      target: `device:${device.id}`,
      details: { code_id: code.id, re_enrolled: !created, platform: device.platform },
    });
    return this.issueTokens(device, user, now);
  }

  async refresh(input: TokenRefresh, ip: string | undefined): Promise<DeviceTokens> {
    const now = this.deps.clock.now();
    if (!input.refresh_token.startsWith(REFRESH_PREFIX)) throw unauthorized();
    const use = await this.deps.devices.useRefreshToken(secretHash(input.refresh_token), now);
    if (use.status === 'unknown') throw unauthorized();
    const device = await this.deps.devices.byId(use.token.device_id);
    if (use.status === 'reused') {
      // A used token presented again: it was copied. Whoever holds the newer one is cut off too.
      if (device && transition(device.status, 'refresh_reused').next === 'revoked') {
        await this.revokeRecord(device, { user: null, ip }, 'mobile.refresh_token_reused');
      }
      throw unauthorized();
    }
    if (use.token.expires_ms <= now || !device || device.generation !== use.token.generation || transition(device.status, 'refresh').outcome !== 'ok') {
      throw unauthorized();
    }
    const user = await this.deps.users.byId(device.user_id);
    if (!user || !user.active) throw unauthorized();
    await this.deps.devices.touch(device.id, now, input.app_version ?? null);
    return this.issueTokens({ ...device, last_seen_ms: now, app_version: input.app_version ?? device.app_version }, user, now);
  }

  /** Sets (or clears) the calling device's push subscription. */
  async setPush(caller: SessionUser, push: PushSubscriptionInput | null): Promise<DeviceView> {
    if (!caller.device_id) throw new AppError('mobile/not_a_device', 'Only an enrolled device registers its push subscription here');
    const device = await this.deps.devices.byId(caller.device_id);
    if (!device || device.status !== 'enrolled') throw unauthorized();
    const pushId = push ? await this.deps.push.register(push, device.user_id, `device: ${device.name}`) : null;
    if (device.push_subscription_id && device.push_subscription_id !== pushId) await this.dropPush(device.push_subscription_id);
    const updated = await this.deps.devices.setPush(device.id, pushId);
    if (!updated) throw unauthorized();
    return this.view(updated, await this.userNames());
  }

  /** Every device for an admin; one's own devices otherwise. */
  async list(caller: SessionUser): Promise<DeviceView[]> {
    const [devices, names] = await Promise.all([
      this.deps.devices.list(caller.role === 'admin' ? {} : { user_id: caller.id }),
      this.userNames(),
    ]);
    return devices.map((d) => this.view(d, names));
  }

  async revoke(id: string, actor: Actor): Promise<DeviceView> {
    const device = await this.deps.devices.byId(id);
    if (!device || transition(device.status, 'revoke').outcome !== 'ok') throw new AppError('mobile/device_not_found', 'No such device');
    await this.revokeRecord(device, actor, 'mobile.device_revoked');
    const after = await this.deps.devices.byId(id);
    return this.view(after ?? device, await this.userNames());
  }

  async delete(id: string, actor: Actor): Promise<void> {
    const removed = await this.deps.devices.delete(id);
    if (!removed) throw new AppError('mobile/device_not_found', 'No such device');
    if (removed.push_subscription_id) await this.dropPush(removed.push_subscription_id);
    this.deps.onDeviceChange(removed.user_id);
    await this.deps.audit.record({ action: 'mobile.device_deleted', actor, target: `device:${id}`, details: { name: removed.name, user_id: removed.user_id } });
  }

  private async revokeRecord(device: DeviceRecord, actor: Actor, action: string): Promise<void> {
    await this.deps.devices.revoke(device.id, this.deps.clock.now());
    if (device.push_subscription_id) await this.dropPush(device.push_subscription_id);
    this.deps.onDeviceChange(device.user_id);
    await this.deps.audit.record({ action, actor, target: `device:${device.id}`, outcome: action === 'mobile.device_revoked' ? 'ok' : 'denied' });
    if (action !== 'mobile.device_revoked') this.deps.logger.warn({ device_id: device.id, user_id: device.user_id }, 'refresh token reused: device revoked');
  }

  private dropPush(id: string): Promise<void> {
    return this.deps.push.remove(id);
  }

  private async issueTokens(device: DeviceRecord, user: UserRecord, now: number): Promise<DeviceTokens> {
    const refresh = REFRESH_PREFIX + randomBase62(REFRESH_TOKEN_LENGTH);
    await this.deps.devices.insertRefreshToken({
      hash: secretHash(refresh),
      device_id: device.id,
      generation: device.generation,
      created_ms: now,
      expires_ms: now + this.deps.policy.refreshTtlMs,
      used_ms: null,
    });
    const access = this.deps.tokens.issue(user, { device: { id: device.id, generation: device.generation }, ttlMs: this.deps.policy.accessTtlMs });
    return {
      access_token: access.token,
      refresh_token: refresh,
      expires_in: Math.floor(this.deps.policy.accessTtlMs / 1000),
      device: this.view(device, await this.userNames()),
      user: { id: user.id, username: user.username, role: user.role },
    };
  }
}
