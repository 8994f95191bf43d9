import type Database from 'better-sqlite3';
import type { DeviceRecord, DevicesRepo, EnrollInput, EnrollmentCodeRecord, RefreshTokenRecord } from '../devices.types.js';
import type { SqliteMigration } from './sqlite-migration.js';

type Db = Database.Database;

export const DEVICES_SQLITE_MIGRATION: SqliteMigration = {
  id: 26,
  name: 'mobile enrollment codes, devices, refresh tokens',
  sql: `
    CREATE TABLE enrollment_codes (
      id TEXT PRIMARY KEY,
      code_hash TEXT NOT NULL UNIQUE,
      user_id TEXT NOT NULL,
      created_by TEXT,
      created_ms INTEGER NOT NULL,
      expires_ms INTEGER NOT NULL,
      used_ms INTEGER,
      used_by TEXT,
      revoked_ms INTEGER
    );
    CREATE INDEX enrollment_codes_by_created ON enrollment_codes (created_ms);
    CREATE TABLE devices (
      id TEXT PRIMARY KEY,
      device_uuid TEXT NOT NULL UNIQUE,
      user_id TEXT NOT NULL,
      name TEXT NOT NULL,
      platform TEXT NOT NULL,
      app_version TEXT,
      status TEXT NOT NULL,
      generation INTEGER NOT NULL,
      push_subscription_id TEXT,
      enrolled_ms INTEGER NOT NULL,
      last_seen_ms INTEGER NOT NULL,
      revoked_ms INTEGER
    );
    CREATE INDEX devices_by_user ON devices (user_id);
    CREATE TABLE refresh_tokens (
      hash TEXT PRIMARY KEY,
      device_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      expires_ms INTEGER NOT NULL,
      used_ms INTEGER
    );
    CREATE INDEX refresh_tokens_by_device ON refresh_tokens (device_id);
    CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_ms);
  `,
};

export function sqliteDevices(db: Db): DevicesRepo {
  const codeByHash = db.prepare<[string], EnrollmentCodeRecord>('SELECT * FROM enrollment_codes WHERE code_hash = ?');
  const deviceById = db.prepare<[string], DeviceRecord>('SELECT * FROM devices WHERE id = ?');
  const deviceByUuid = db.prepare<[string], DeviceRecord>('SELECT * FROM devices WHERE device_uuid = ?');
  const deleteTokens = db.prepare<[string]>('DELETE FROM refresh_tokens WHERE device_id = ?');

  const consume = db.transaction((hash: string, nowMs: number): EnrollmentCodeRecord | null => {
    const { changes } = db
      .prepare(`UPDATE enrollment_codes SET used_ms = ? WHERE code_hash = ? AND used_ms IS NULL AND revoked_ms IS NULL AND expires_ms > ?`)
      .run(nowMs, hash, nowMs);
    return changes === 1 ? (codeByHash.get(hash) ?? null) : null;
  });

  const enroll = db.transaction((input: EnrollInput) => {
    const previous = deviceByUuid.get(input.device_uuid) ?? null;
    if (!previous) {
      const device: DeviceRecord = {
        id: input.id,
        device_uuid: input.device_uuid,
        user_id: input.user_id,
        name: input.name,
        platform: input.platform,
        app_version: input.app_version,
        status: 'enrolled',
        generation: 1,
        push_subscription_id: input.push_subscription_id,
        enrolled_ms: input.now_ms,
        last_seen_ms: input.now_ms,
        revoked_ms: null,
      };
      db.prepare(`INSERT INTO devices (id, device_uuid, user_id, name, platform, app_version, status, generation, push_subscription_id,
        enrolled_ms, last_seen_ms, revoked_ms) VALUES (@id, @device_uuid, @user_id, @name, @platform, @app_version, @status, @generation,
        @push_subscription_id, @enrolled_ms, @last_seen_ms, @revoked_ms)`).run(device);
      return { device, created: true, previous: null };
    }
    const device: DeviceRecord = {
      ...previous,
      user_id: input.user_id,
      name: input.name,
      platform: input.platform,
      app_version: input.app_version,
      status: 'enrolled',
      generation: previous.generation + 1,
      push_subscription_id: input.push_subscription_id,
      enrolled_ms: input.now_ms,
      last_seen_ms: input.now_ms,
      revoked_ms: null,
    };
    db.prepare(`UPDATE devices SET user_id = @user_id, name = @name, platform = @platform, app_version = @app_version, status = @status,
      generation = @generation, push_subscription_id = @push_subscription_id, enrolled_ms = @enrolled_ms, last_seen_ms = @last_seen_ms,
      revoked_ms = NULL WHERE id = @id`).run(device);
    deleteTokens.run(device.id);
    return { device, created: false, previous };
  });

  const revoke = db.transaction((id: string, atMs: number): DeviceRecord | null => {
    const before = deviceById.get(id);
    if (!before) return null;
    db.prepare(`UPDATE devices SET status = 'revoked', revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?`).run(atMs, id);
    deleteTokens.run(id);
    return before;
  });

  const remove = db.transaction((id: string): DeviceRecord | null => {
    const before = deviceById.get(id);
    if (!before) return null;
    db.prepare('DELETE FROM devices WHERE id = ?').run(id);
    deleteTokens.run(id);
    return before;
  });

  const useToken = db.transaction((hash: string, nowMs: number) => {
    const { changes } = db.prepare('UPDATE refresh_tokens SET used_ms = ? WHERE hash = ? AND used_ms IS NULL').run(nowMs, hash);
    const token = db.prepare<[string], RefreshTokenRecord>('SELECT * FROM refresh_tokens WHERE hash = ?').get(hash);
    if (!token) return { status: 'unknown' as const };
    return changes === 1 ? { status: 'ok' as const, token } : { status: 'reused' as const, token };
  });

  return {
    async insertCode(code) {
      db.prepare(`INSERT INTO enrollment_codes (id, code_hash, user_id, created_by, created_ms, expires_ms, used_ms, used_by, revoked_ms)
        VALUES (@id, @code_hash, @user_id, @created_by, @created_ms, @expires_ms, @used_ms, @used_by, @revoked_ms)`).run(code);
    },
    async listCodes() {
      return db.prepare<[], EnrollmentCodeRecord>('SELECT * FROM enrollment_codes ORDER BY created_ms DESC, id').all();
    },
    async revokeCode(id, atMs) {
      const { changes } = db
        .prepare('UPDATE enrollment_codes SET revoked_ms = ? WHERE id = ? AND used_ms IS NULL AND revoked_ms IS NULL')
        .run(atMs, id);
      return changes === 1;
    },
    async consumeCode(hash, nowMs) {
      return consume.immediate(hash, nowMs);
    },
    async markCodeUsedBy(id, deviceId) {
      db.prepare('UPDATE enrollment_codes SET used_by = ? WHERE id = ?').run(deviceId, id);
    },
    async enroll(input) {
      return enroll.immediate(input);
    },
    async byId(id) {
      return deviceById.get(id) ?? null;
    },
    async list(filter = {}) {
      if (filter.user_id !== undefined) {
        return db.prepare<[string], DeviceRecord>('SELECT * FROM devices WHERE user_id = ? ORDER BY last_seen_ms DESC, id').all(filter.user_id);
      }
      return db.prepare<[], DeviceRecord>('SELECT * FROM devices ORDER BY last_seen_ms DESC, id').all();
    },
    async touch(id, atMs, appVersion) {
      db.prepare(`UPDATE devices SET last_seen_ms = max(last_seen_ms, ?), app_version = coalesce(?, app_version) WHERE id = ? AND status = 'enrolled'`).run(
        atMs,
        appVersion ?? null,
        id,
      );
    },
    async setPush(id, pushSubscriptionId) {
      const { changes } = db.prepare(`UPDATE devices SET push_subscription_id = ? WHERE id = ? AND status = 'enrolled'`).run(pushSubscriptionId, id);
      return changes === 1 ? (deviceById.get(id) ?? null) : null;
    },
    async revoke(id, atMs) {
      return revoke.immediate(id, atMs);
    },
    async delete(id) {
      return remove.immediate(id);
    },
    async insertRefreshToken(token) {
      db.prepare(`INSERT INTO refresh_tokens (hash, device_id, generation, created_ms, expires_ms, used_ms)
        VALUES (@hash, @device_id, @generation, @created_ms, @expires_ms, @used_ms)`).run(token);
    },
    async useRefreshToken(hash, nowMs) {
      return useToken.immediate(hash, nowMs);
    },
    async prune(nowMs, codesBeforeMs) {
      const tokens = db.prepare('DELETE FROM refresh_tokens WHERE expires_ms <= ?').run(nowMs).changes;
      return tokens + db.prepare('DELETE FROM enrollment_codes WHERE expires_ms < ?').run(codesBeforeMs).changes;
    },
  };
}
