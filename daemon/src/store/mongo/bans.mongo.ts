import { MongoServerError, type Db } from 'mongodb';
import type { BanRecord, BansRepo } from '../bans.types.js';
import { withLock } from './locks.mongo.js';

export const BANS_MONGO_MIGRATION = {
  id: 73,
  name: 'fleet SSH bans (one open ban per address)',
  async up(db: Db) {
    await db.collection('ssh_bans').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { slot: 1 }, name: 'slot_unique', unique: true },
      { key: { created_ms: -1, id: -1 }, name: 'by_created' },
      { key: { address: 1, applied_ms: 1 }, name: 'by_address' },
      { key: { status: 1, expires_ms: 1 }, name: 'by_expiry' },
    ]);
  },
};

const OPEN = ['proposed', 'active'];

export function mongoBans(db: Db): BansRepo {
  const bans = db.collection<BanRecord>('ssh_bans');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async insertOpen(record) {
      try {
        await bans.insertOne({ ...record });
        return { inserted: true };
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        const existing = await bans.findOne({ slot: record.slot }, noId);
        // The open ban that held the slot was closed in between: try once more.
        if (!existing) return this.insertOpen(record);
        return { inserted: false, existing };
      }
    },
    async byId(id) {
      return bans.findOne({ id }, noId);
    },
    async list({ status, limit }) {
      const filter = status === 'open' ? { status: { $in: OPEN } } : status === 'closed' ? { status: { $nin: OPEN } } : {};
      return bans.find(filter as never, noId).sort({ created_ms: -1, id: -1 }).limit(limit).toArray();
    },
    async transition(id, from, change) {
      // FerretDB applies a filtered update as read-then-write: two daemons could both move one
      // ban (apply it twice), so a ban's transitions are serialised under a store lock.
      return withLock(db, `ssh_ban:${id}`, async () => {
        const current = await bans.findOne({ id }, noId);
        if (current?.status !== from) return null;
        await bans.updateOne({ id }, { $set: change });
        return { ...current, ...change };
      });
    },
    async appliedSince(address, sinceMs) {
      return bans.countDocuments({ address, applied_ms: { $gte: sinceMs } });
    },
    async expiredBy(nowMs) {
      return bans.find({ status: 'active', expires_ms: { $lte: nowMs } }, noId).sort({ expires_ms: 1 }).toArray();
    },
  };
}
