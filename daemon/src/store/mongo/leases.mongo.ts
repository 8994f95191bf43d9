import type { Db } from 'mongodb';
import type { LeasesRepo } from '../leases.types.js';
import { withLock } from './locks.mongo.js';

export function mongoLeases(db: Db): LeasesRepo {
  const leases = db.collection<{ _id: string; owner: string; expires_ms: number }>('leases');
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      return withLock(db, `lease:${name}`, async () => {
        const held = await leases.findOne({ _id: name });
        if (held && held.owner !== owner && held.expires_ms > nowMs) return false;
        await leases.updateOne({ _id: name }, { $set: { owner, expires_ms: nowMs + ttlMs } }, { upsert: true });
        return true;
      });
    },
    async release(name, owner) {
      await withLock(db, `lease:${name}`, () => leases.deleteOne({ _id: name, owner }));
    },
  };
}
