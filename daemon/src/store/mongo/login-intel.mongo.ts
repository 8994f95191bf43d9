import type { Db, WithId } from 'mongodb';
import type { BaselineValue, LoginBaselinesRepo, UserLogin, UserLoginsRepo } from '../login-intel.types.js';
import { withLocks } from './locks.mongo.js';
import { findEach, inParallel, insertNew, pruneSchedule } from './query.mongo.js';

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
  const pruneDue = pruneSchedule();

  /**
   * Adds the counts of the users whose locks are held. FerretDB applies even `$inc`, `$min` and
   * `$max` as a read-modify-write of the document, so every write of a user's values happens under
   * that user's lock (locks.mongo.ts): several daemons count exactly. Under the lock the stored
   * values are read (one equality query per user) and written as they now are: the new ones with
   * one insertMany, the others one update each in parallel — not an upsert per value in a
   * bulkWrite, which FerretDB commits one after the other, one transaction each.
   */
  async function addLocked(users: string[], rows: BaselineValue[], pruneBeforeMs: number): Promise<void> {
    if (rows.length === 0) return;
    const id = (v: Key) => `${v.user}\u0000${v.dim}\u0000${v.value}`;
    const stored = new Map((await findEach(values, users.map((user) => ({ user })))).map((doc) => [id(doc), doc]));
    const inserted = new Map<string, BaselineValue>();
    const updated = new Map<string, WithId<BaselineValue>>();
    for (const row of rows) {
      const k = id(row);
      const old = stored.get(k);
      // A stored value past the horizon is pruned within a minute (pruneSchedule), or by another
      // daemon meanwhile: it starts afresh, and the update below recreates it if it went.
      const from = old && old.last_ms < pruneBeforeMs ? { ...old, count: 0, first_ms: row.first_ms, last_ms: row.last_ms } : old;
      const before = updated.get(k) ?? inserted.get(k) ?? from;
      // The newest login's label and sighting are kept (a tie goes to the row added).
      const next = before && {
        ...before,
        count: before.count + row.count,
        first_ms: Math.min(before.first_ms, row.first_ms),
        last_ms: Math.max(before.last_ms, row.last_ms),
        ...(row.last_ms >= before.last_ms ? { label: row.label, sighting: row.sighting } : {}),
      };
      if (!next) inserted.set(k, { ...row });
      else if (inserted.has(k)) inserted.set(k, next);
      else updated.set(k, next as WithId<BaselineValue>);
    }
    await Promise.all([
      inserted.size > 0 ? values.insertMany([...inserted.values()], { ordered: false }) : undefined,
      inParallel([...updated.values()], ({ _id, ...value }) => values.updateOne({ _id }, { $set: value }, { upsert: true })),
    ]);
  }

  return {
    async add(rows, pruneBeforeMs) {
      // Values past the horizon not yet pruned start afresh when added to (addLocked).
      if (pruneDue(pruneBeforeMs)) await values.deleteMany({ last_ms: { $lt: pruneBeforeMs } });
      const lockOf = (user: string) => `login_baseline:${user}`;
      const userOf = new Map(rows.map((r) => [lockOf(r.user), r.user]));
      await withLocks(db, [...userOf.keys()], (acquired) =>
        addLocked(
          acquired.map((name) => userOf.get(name)!),
          rows.filter((r) => acquired.includes(lockOf(r.user))),
          pruneBeforeMs,
        ),
      );
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
  const pruneDue = pruneSchedule();
  return {
    async record(rows, pruneBeforeMs) {
      // Keyed by event id (unique index): a re-sent or concurrently recorded login stays one row.
      await Promise.all([insertNew(logins, rows), pruneDue(pruneBeforeMs) ? logins.deleteMany({ occurred_ms: { $lt: pruneBeforeMs } }) : undefined]);
    },
    async list(user, limit) {
      const rows = await logins.find({ user }, { projection: { _id: 0 } }).sort({ occurred_ms: -1, event_id: -1 }).limit(limit).toArray();
      // A field written null may come back absent: null again.
      return rows.map((r) => ({ ...r, address: r.address ?? null, country: r.country ?? null, asn: r.asn ?? null, as_org: r.as_org ?? null }));
    },
  };
}
