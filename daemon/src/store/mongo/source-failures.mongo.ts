import type { Db } from 'mongodb';
import type { SourceFailure, SourceFailuresRepo } from '../source-failures.types.js';
import { insertNew, pruneSchedule } from './query.mongo.js';

export const SOURCE_FAILURES_MONGO_MIGRATION = {
  id: 63,
  name: 'failed logins by source address (success after failures, distributed brute force)',
  async up(db: Db) {
    await db.collection('source_failures').createIndexes([
      { key: { event_id: 1 }, name: 'event_unique', unique: true },
      { key: { address: 1, occurred_ms: 1 }, name: 'by_address' },
      { key: { occurred_ms: 1 }, name: 'by_time' },
    ]);
  },
};

export function mongoSourceFailures(db: Db): SourceFailuresRepo {
  const failures = db.collection<SourceFailure>('source_failures');
  const pruneDue = pruneSchedule();
  return {
    async record(rows, pruneBeforeMs) {
      // Keyed by event id (unique index): a re-sent or concurrently recorded failure stays one row.
      await Promise.all([insertNew(failures, rows), pruneDue(pruneBeforeMs) ? failures.deleteMany({ occurred_ms: { $lt: pruneBeforeMs } }) : undefined]);
    },
    async list(q) {
      if (q.addresses.length === 0) return [];
      return failures
        .find({ address: { $in: q.addresses }, occurred_ms: { $gte: q.from_ms, $lte: q.to_ms } }, { projection: { _id: 0 } })
        .sort({ occurred_ms: -1, event_id: -1 })
        .limit(q.limit)
        .toArray();
    },
  };
}
