import type { Db } from 'mongodb';
import type { SessionRecord, SessionsRepo } from '../sessions.types.js';

const NO_ID = { projection: { _id: 0 } } as const;

export function mongoSessions(db: Db): SessionsRepo {
  const sessions = db.collection<SessionRecord>('sessions');
  return {
    async insert(session) {
      await sessions.insertOne({ ...session });
    },
    async byId(id) {
      return sessions.findOne({ id }, NO_ID);
    },
    async revoke(id, atMs) {
      // Idempotent rather than exactly-once: FerretDB does not make the filtered update atomic.
      if ((await sessions.updateOne({ id, revoked_ms: null }, { $set: { revoked_ms: atMs } })).modifiedCount === 1) return true;
      return (await sessions.countDocuments({ id }, { limit: 1 })) === 1;
    },
    async revokeUser(userId, atMs) {
      return (await sessions.updateMany({ user_id: userId, revoked_ms: null }, { $set: { revoked_ms: atMs } })).modifiedCount;
    },
    async prune(beforeMs) {
      return (await sessions.deleteMany({ $or: [{ expires_ms: { $lt: beforeMs } }, { revoked_ms: { $ne: null, $lt: beforeMs } }] })).deletedCount;
    },
  };
}
