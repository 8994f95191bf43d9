import { MongoServerError, type Db } from 'mongodb';
import type { DeviceRecord, DevicesRepo, EnrollmentCodeRecord, RefreshTokenRecord } from '../devices.types.js';
import type { MongoMigration } from './mongo-migration.js';

const DUPLICATE_KEY = 11000;
const NO_ID = { projection: { _id: 0 } } as const;

const isDuplicate = (err: unknown) => err instanceof MongoServerError && err.code === DUPLICATE_KEY;

/** Inserts a marker document; true for the one caller whose insert created it. */
async function claim(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicate(err)) return false;
    throw err;
  }
}

export const DEVICES_MONGO_MIGRATION: MongoMigration = {
  id: 26,
  name: 'mobile enrollment codes, devices, refresh tokens',
  async up(db) {
    await db.collection('enrollment_codes').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { code_hash: 1 }, name: 'code_hash_unique', unique: true },
      { key: { created_ms: -1 }, name: 'by_created' },
    ]);
    await db.collection('enrollment_code_uses').createIndexes([{ key: { code_id: 1 }, name: 'code_id_unique', unique: true }]);
    await db.collection('devices').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { device_uuid: 1 }, name: 'device_uuid_unique', unique: true },
      { key: { user_id: 1 }, name: 'by_user' },
    ]);
    await db.collection('device_generations').createIndexes([
      { key: { device_id: 1, generation: 1 }, name: 'device_generation_unique', unique: true },
    ]);
    await db.collection('refresh_tokens').createIndexes([
      { key: { hash: 1 }, name: 'hash_unique', unique: true },
      { key: { device_id: 1 }, name: 'by_device' },
      { key: { expires_ms: 1 }, name: 'by_expiry' },
    ]);
    await db.collection('refresh_token_uses').createIndexes([
      { key: { hash: 1 }, name: 'hash_unique', unique: true },
      { key: { device_id: 1 }, name: 'by_device' },
    ]);
  },
};

/**
 * FerretDB does not make conditional updates or `$inc` atomic, so every "exactly one caller"
 * decision here is a unique-index insert of a marker: the use of a code, the use of a refresh
 * token, a device's next generation and its first record.
 */
export function mongoDevices(db: Db): DevicesRepo {
  const codes = db.collection<EnrollmentCodeRecord>('enrollment_codes');
  const codeUses = db.collection<{ code_id: string }>('enrollment_code_uses');
  const devices = db.collection<DeviceRecord>('devices');
  const generations = db.collection<{ device_id: string; generation: number }>('device_generations');
  const tokens = db.collection<RefreshTokenRecord>('refresh_tokens');
  const tokenUses = db.collection<{ hash: string; device_id: string }>('refresh_token_uses');

  const dropTokens = async (deviceId: string) => {
    await tokens.deleteMany({ device_id: deviceId });
    await tokenUses.deleteMany({ device_id: deviceId });
  };

  /** The device's next generation, unique even when two enrollments race. */
  async function nextGeneration(deviceId: string, from: number): Promise<number> {
    for (let g = from + 1; ; g++) {
      if (await claim(() => generations.insertOne({ device_id: deviceId, generation: g }))) return g;
    }
  }

  return {
    async insertCode(code) {
      await codes.insertOne({ ...code });
    },
    async listCodes() {
      return codes.find({}, NO_ID).sort({ created_ms: -1, id: 1 }).toArray();
    },
    async revokeCode(id, atMs) {
      const code = await codes.findOne({ id }, NO_ID);
      if (!code || code.used_ms !== null || code.revoked_ms !== null) return false;
      // Taking the use marker makes a revoke and a concurrent enrollment exclusive.
      if (!(await claim(() => codeUses.insertOne({ code_id: id })))) return false;
      await codes.updateOne({ id }, { $set: { revoked_ms: atMs } });
      return true;
    },
    async consumeCode(hash, nowMs) {
      const code = await codes.findOne({ code_hash: hash }, NO_ID);
      if (!code || code.used_ms !== null || code.revoked_ms !== null || code.expires_ms <= nowMs) return null;
      if (!(await claim(() => codeUses.insertOne({ code_id: code.id })))) return null;
      await codes.updateOne({ id: code.id }, { $set: { used_ms: nowMs } });
      return { ...code, used_ms: nowMs };
    },
    async markCodeUsedBy(id, deviceId) {
      await codes.updateOne({ id }, { $set: { used_by: deviceId } });
    },
    async enroll(input) {
      const fresh: DeviceRecord = {
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
      if (await claim(() => devices.insertOne({ ...fresh }))) {
        await generations.insertOne({ device_id: fresh.id, generation: 1 }).catch((err: unknown) => {
          if (!isDuplicate(err)) throw err;
        });
        return { device: fresh, created: true, previous: null };
      }
      const previous = await devices.findOne({ device_uuid: input.device_uuid }, NO_ID);
      if (!previous) throw new Error('device record vanished during enrollment');
      const generation = await nextGeneration(previous.id, previous.generation);
      const device: DeviceRecord = { ...fresh, id: previous.id, generation };
      const { id: _id, device_uuid: _uuid, ...fields } = device;
      await devices.updateOne({ id: previous.id }, { $set: fields });
      await dropTokens(previous.id);
      return { device, created: false, previous };
    },
    async byId(id) {
      return devices.findOne({ id }, NO_ID);
    },
    async list(filter = {}) {
      const query = filter.user_id !== undefined ? { user_id: filter.user_id } : {};
      return devices.find(query, NO_ID).sort({ last_seen_ms: -1, id: 1 }).toArray();
    },
    async touch(id, atMs, appVersion) {
      const set: Partial<DeviceRecord> = { last_seen_ms: atMs };
      if (appVersion) set.app_version = appVersion;
      await devices.updateOne({ id, status: 'enrolled', last_seen_ms: { $lt: atMs } }, { $set: set });
    },
    async setPush(id, pushSubscriptionId) {
      const res = await devices.updateOne({ id, status: 'enrolled' }, { $set: { push_subscription_id: pushSubscriptionId } });
      return res.matchedCount === 1 ? devices.findOne({ id }, NO_ID) : null;
    },
    async revoke(id, atMs) {
      const before = await devices.findOne({ id }, NO_ID);
      if (!before) return null;
      if (before.status !== 'revoked') await devices.updateOne({ id }, { $set: { status: 'revoked', revoked_ms: atMs } });
      await dropTokens(id);
      return before;
    },
    async delete(id) {
      const before = await devices.findOne({ id }, NO_ID);
      if (!before) return null;
      if ((await devices.deleteOne({ id })).deletedCount !== 1) return null;
      await dropTokens(id);
      await generations.deleteMany({ device_id: id });
      return before;
    },
    async insertRefreshToken(token) {
      await tokens.insertOne({ ...token });
    },
    async useRefreshToken(hash, nowMs) {
      const token = await tokens.findOne({ hash }, NO_ID);
      if (!token) return { status: 'unknown' };
      if (!(await claim(() => tokenUses.insertOne({ hash, device_id: token.device_id })))) return { status: 'reused', token };
      await tokens.updateOne({ hash }, { $set: { used_ms: nowMs } });
      return { status: 'ok', token: { ...token, used_ms: nowMs } };
    },
    async prune(nowMs, codesBeforeMs) {
      let deleted = 0;
      const expired = await tokens.find({ expires_ms: { $lte: nowMs } }, { projection: { _id: 0, hash: 1 } }).toArray();
      if (expired.length > 0) {
        const hashes = expired.map((t) => t.hash);
        deleted += (await tokens.deleteMany({ hash: { $in: hashes } })).deletedCount;
        await tokenUses.deleteMany({ hash: { $in: hashes } });
      }
      const old = await codes.find({ expires_ms: { $lt: codesBeforeMs } }, { projection: { _id: 0, id: 1 } }).toArray();
      if (old.length > 0) {
        const ids = old.map((c) => c.id);
        deleted += (await codes.deleteMany({ id: { $in: ids } })).deletedCount;
        await codeUses.deleteMany({ code_id: { $in: ids } });
      }
      return deleted;
    },
  };
}
