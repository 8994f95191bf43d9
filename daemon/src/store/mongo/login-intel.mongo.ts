import type { AnyBulkWriteOperation, Db } from 'mongodb';
import type { BaselineValue, LoginBaselinesRepo, UserLogin, UserLoginsRepo } from '../login-intel.types.js';
import { writeErrorsOf } from './query.mongo.js';

/** Migration 68: per-user login baselines, one document per user, dimension and value. */
export const LOGIN_BASELINES_MONGO_MIGRATION = {
  id: 68,
  name: 'per-user login baselines (new source for user, impossible travel)',
  async up(db: Db) {
    await db.collection('login_baselines').createIndexes([
      { key: { user: 1, dim: 1, value: 1 }, name: 'value_unique', unique: true },
      { key: { last_ms: 1 }, name: 'by_time' },
    ]);
  },
};

/** Migration 69: logins by normalised user (a user's page). */
export const USER_LOGINS_MONGO_MIGRATION = {
  id: 69,
  name: 'logins by normalised user',
  async up(db: Db) {
    await db.collection('user_logins').createIndexes([
      { key: { event_id: 1 }, name: 'event_unique', unique: true },
      { key: { user: 1, occurred_ms: -1 }, name: 'by_user' },
      { key: { occurred_ms: 1 }, name: 'by_time' },
    ]);
  },
};

type Key = Pick<BaselineValue, 'user' | 'dim' | 'value'>;
const keyOf = (v: Key): Key => ({ user: v.user, dim: v.dim, value: v.value });

export function mongoLoginBaselines(db: Db): LoginBaselinesRepo {
  const values = db.collection<BaselineValue>('login_baselines');

  /**
   * The counting upserts, ordered: false. Two daemons inserting one new value at once: the loser
   * fails on the unique index without having written, and only its failed upserts go again (they
   * now find the value), so nothing is counted twice.
   */
  async function upsertCounts(rows: BaselineValue[]): Promise<void> {
    let pending = rows;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const ops: AnyBulkWriteOperation<BaselineValue>[] = pending.map((v) => ({
        updateOne: {
          filter: keyOf(v),
          update: { $inc: { count: v.count }, $min: { first_ms: v.first_ms }, $max: { last_ms: v.last_ms }, $setOnInsert: { label: v.label, sighting: v.sighting } },
          upsert: true,
        },
      }));
      try {
        await values.bulkWrite(ops, { ordered: false });
        return;
      } catch (err) {
        const failed = writeErrorsOf(err);
        if (attempt > 0 || failed.length === 0 || failed.some((e) => e.code !== 11000)) throw err;
        const current = pending;
        pending = failed.map((e) => current[e.index]);
      }
    }
  }

  return {
    async add(rows, pruneBeforeMs) {
      await values.deleteMany({ last_ms: { $lt: pruneBeforeMs } });
      if (rows.length > 0) {
        await upsertCounts(rows);
        // The newest login's label and sighting: set only while the stored last_ms is this login's
        // (a newer login another daemon added since has raised it, and keeps its own).
        await values.bulkWrite(
          rows.map((v) => ({ updateOne: { filter: { ...keyOf(v), last_ms: v.last_ms }, update: { $set: { label: v.label, sighting: v.sighting } } } })),
          { ordered: false },
        );
      }
    },
    async of(users) {
      if (users.length === 0) return [];
      return values.find({ user: { $in: users } }, { projection: { _id: 0 } }).toArray();
    },
    async remove(keys) {
      if (keys.length === 0) return;
      await values.bulkWrite(keys.map((k) => ({ deleteOne: { filter: keyOf(k) } })), { ordered: false });
    },
    async replaceAll(rows) {
      await values.deleteMany({});
      if (rows.length > 0) await values.insertMany(rows.map((r) => ({ ...r })), { ordered: false });
    },
  };
}

export function mongoUserLogins(db: Db): UserLoginsRepo {
  const logins = db.collection<UserLogin>('user_logins');
  return {
    async record(rows, pruneBeforeMs) {
      await Promise.all([
        rows.length === 0
          ? undefined
          : logins.bulkWrite(
              rows.map((r) => ({ updateOne: { filter: { event_id: r.event_id }, update: { $setOnInsert: r }, upsert: true } })),
              { ordered: false },
            ),
        logins.deleteMany({ occurred_ms: { $lt: pruneBeforeMs } }),
      ]);
    },
    async list(user, limit) {
      const rows = await logins.find({ user }, { projection: { _id: 0 } }).sort({ occurred_ms: -1, event_id: -1 }).limit(limit).toArray();
      // A field written null may come back absent: null again.
      return rows.map((r) => ({ ...r, address: r.address ?? null, country: r.country ?? null, asn: r.asn ?? null, as_org: r.as_org ?? null }));
    },
  };
}
