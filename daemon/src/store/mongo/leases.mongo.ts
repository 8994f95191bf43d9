import type { Db } from 'mongodb';
import type { LeasesRepo } from '../leases.types.js';
import { withLock } from './locks.mongo.js';

interface LeaseDoc {
  _id: string;
  owner: string;
  expires_ms: number;
  /** Absent on leases written before tokens: the next acquisition numbers them. */
  token?: number;
}

export function mongoLeases(db: Db): LeasesRepo {
  const leases = db.collection<LeaseDoc>('leases');
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      // Under the lease's store lock: FerretDB has no atomic read-modify-write, and the token
      // must grow exactly once per change of hands.
      return withLock(db, `lease:${name}`, async () => {
        const held = await leases.findOne({ _id: name });
        if (held && held.owner !== owner && held.expires_ms > nowMs) return null;
        const token = held?.owner === owner && held.token ? held.token : (held?.token ?? 0) + 1;
        await leases.updateOne({ _id: name }, { $set: { owner, expires_ms: nowMs + ttlMs, token } }, { upsert: true });
        return token;
      });
    },
    async release(name, owner) {
      await withLock(db, `lease:${name}`, () => leases.updateOne({ _id: name, owner }, { $set: { expires_ms: 0 } }));
    },
    async token(name) {
      return (await leases.findOne({ _id: name }, { projection: { token: 1 } }))?.token ?? 0;
    },
  };
}
