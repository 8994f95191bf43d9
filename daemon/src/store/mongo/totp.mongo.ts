import type { Db } from 'mongodb';
import type { TotpRecord, TotpRepo } from '../totp.types.js';
import { withLock } from './locks.mongo.js';

/**
 * FerretDB applies conditional updates as read-modify-write, so every change of a user's record
 * (a used time step, a used recovery code) happens under that user's lock: a replayed code loses.
 */
export function mongoTotp(db: Db): TotpRepo {
  const totp = db.collection<TotpRecord>('user_totp');
  const noId = { projection: { _id: 0 } } as const;
  const locked = <T>(userId: string, fn: () => Promise<T>) => withLock(db, `totp:${userId}`, fn);
  return {
    async get(userId) {
      return totp.findOne({ user_id: userId }, noId);
    },
    async putPending(r) {
      return locked(r.user_id, async () => {
        const current = await totp.findOne({ user_id: r.user_id });
        if (current?.enabled) return false;
        await totp.replaceOne({ user_id: r.user_id }, { ...r, enabled: false, enabled_ms: null }, { upsert: true });
        return true;
      });
    },
    async enable(userId, step, hashes, nowMs) {
      return locked(userId, async () => {
        const current = await totp.findOne({ user_id: userId });
        if (!current || current.enabled || current.last_step >= step) return false;
        await totp.updateOne({ user_id: userId }, { $set: { enabled: true, last_step: step, recovery_hashes: hashes, enabled_ms: nowMs } });
        return true;
      });
    },
    async useStep(userId, step) {
      return locked(userId, async () => {
        const current = await totp.findOne({ user_id: userId });
        if (!current?.enabled || current.last_step >= step) return false;
        await totp.updateOne({ user_id: userId }, { $set: { last_step: step } });
        return true;
      });
    },
    async useRecoveryCode(userId, hash) {
      return locked(userId, async () => {
        const current = await totp.findOne({ user_id: userId });
        if (!current?.enabled || !current.recovery_hashes.includes(hash)) return false;
        await totp.updateOne({ user_id: userId }, { $set: { recovery_hashes: current.recovery_hashes.filter((h) => h !== hash) } });
        return true;
      });
    },
    async remove(userId) {
      return locked(userId, async () => (await totp.deleteOne({ user_id: userId })).deletedCount > 0);
    },
  };
}
