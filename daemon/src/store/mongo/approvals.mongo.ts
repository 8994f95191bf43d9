import type { Db } from 'mongodb';
import type { ApprovalRecord, ApprovalsRepo } from '../approvals.types.js';
import { withLock } from './locks.mongo.js';

export const APPROVALS_MONGO_MIGRATION = {
  id: 78,
  name: 'two-person approval requests',
  async up(db: Db) {
    await db.collection('approvals').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { requested_ms: -1, id: -1 }, name: 'by_time' },
      { key: { state: 1, expires_ms: 1 }, name: 'pending' },
    ]);
  },
};

export function mongoApprovals(db: Db): ApprovalsRepo {
  const approvals = db.collection<ApprovalRecord>('approvals');
  const NO_ID = { projection: { _id: 0 } } as const;
  return {
    async insert(r) {
      await approvals.insertOne({ ...r });
    },
    async byId(id) {
      return approvals.findOne({ id }, NO_ID);
    },
    async list(q) {
      return approvals
        .find(q.state ? { state: q.state } : {}, NO_ID)
        .sort({ requested_ms: -1, id: -1 })
        .limit(q.limit)
        .toArray();
    },
    async decide(id, d) {
      // One document, filtered on its state, under the request's lock: FerretDB applies a filtered
      // update as read-then-write, so without it two daemons' decisions could both match.
      return withLock(db, `approval:${id}`, async () => (await approvals.updateOne({ id, state: 'pending' }, { $set: { ...d } })).modifiedCount === 1);
    },
    async setResult(id, result) {
      await approvals.updateOne({ id }, { $set: { result } });
    },
    async dueToExpire(nowMs, limit) {
      return approvals.find({ state: 'pending', expires_ms: { $lte: nowMs } }, NO_ID).sort({ expires_ms: 1 }).limit(limit).toArray();
    },
  };
}
