import { MongoServerError, type Db } from 'mongodb';
import type {
  LoginThrottleRepo,
  StreamTicketsRepo,
  TicketSession,
  UserChange,
  UserPatch,
  UserRecord,
  UsersRepo,
} from '../auth.types.js';
import { isActiveAdmin, removesLastAdmin } from '../user-rules.js';

const DUPLICATE_KEY = 11000;

type UserDoc = UserRecord & { username_key: string };
const NO_ID = { projection: { _id: 0, username_key: 0 } } as const;

/** Users remember their latest sign-in; users created before have none yet. */
export const USERS_LAST_LOGIN_MONGO_MIGRATION = {
  id: 34,
  name: 'users: time of the latest sign-in',
  async up(db: Db) {
    await db.collection('users').updateMany({ last_login_ms: { $exists: false } }, { $set: { last_login_ms: null } });
  },
};

export function mongoUsers(db: Db): UsersRepo {
  const users = db.collection<UserDoc>('users');
  const activeAdmins = () => users.countDocuments({ role: 'admin', active: true });

  /**
   * No multi-document transactions (FerretDB, standalone servers): the change is written, then the
   * remaining active admins are counted, and the change is undone when none is left. Two admins
   * demoting each other at once both see zero and both undo, so the invariant holds either way.
   */
  async function guardedUpdate(id: string, patch: UserPatch): Promise<UserChange> {
    const before = await users.findOne({ id }, NO_ID);
    if (!before) return { status: 'not_found' };
    const { updated_ms, ...fields } = patch;
    // No projection here: FerretDB does not implement it for findAndModify.
    const doc = await users.findOneAndUpdate(
      { id },
      { $set: { ...fields, updated_ms }, $inc: { token_version: patch.password_hash !== undefined ? 1 : 0 } },
      { returnDocument: 'after' },
    );
    if (!doc) return { status: 'not_found' };
    const { _id, username_key: _key, ...after } = doc;
    if (removesLastAdmin(before, after, await activeAdmins())) {
      const { id: _id, username: _u, created_ms: _c, last_login_ms: _l, ...restore } = before;
      await users.updateOne({ id }, { $set: restore });
      return { status: 'last_admin' };
    }
    return { status: 'ok', user: after };
  }

  return {
    async insert(u) {
      try {
        await users.insertOne({ ...u, username_key: u.username.toLowerCase() });
        return 'inserted';
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return 'duplicate';
        throw err;
      }
    },
    async byId(id) {
      return users.findOne({ id }, NO_ID);
    },
    async byUsername(username) {
      return users.findOne({ username_key: username.toLowerCase() }, NO_ID);
    },
    async list() {
      return users.find({}, NO_ID).sort({ username_key: 1 }).toArray();
    },
    async count() {
      return users.countDocuments();
    },
    update: guardedUpdate,
    async delete(id) {
      // Deactivate first through the guard, so the last admin can never be deleted by a race.
      const user = await users.findOne({ id }, NO_ID);
      if (!user) return { status: 'not_found' };
      if (isActiveAdmin(user)) {
        const guarded = await guardedUpdate(id, { active: false, updated_ms: user.updated_ms });
        if (guarded.status !== 'ok') return guarded;
      }
      const res = await users.deleteOne({ id });
      return res.deletedCount === 1 ? { status: 'ok', user } : { status: 'not_found' };
    },
    async recordLogin(id, atMs) {
      // BSON orders null below numbers, so $max also sets the first sign-in.
      await users.updateOne({ id }, { $max: { last_login_ms: atMs } });
    },
  };
}

/** One failed sign-in; a document each, because `$push` to one list loses parallel failures on FerretDB. */
interface FailureDoc {
  key: string;
  at_ms: number;
}

/**
 * Migration 51: failed sign-ins move from one list per username (`login_throttle`) to one document
 * each (`login_failures`). Re-runnable: a list is deleted only after its failures were copied.
 */
export const LOGIN_FAILURES_MONGO_MIGRATION = {
  id: 51,
  name: 'failed sign-ins stored one document each',
  async up(db: Db) {
    const failures = db.collection<FailureDoc>('login_failures');
    await failures.createIndexes([{ key: { key: 1, at_ms: 1 }, name: 'by_key_time' }, { key: { at_ms: 1 }, name: 'by_time' }]);
    const lists = db.collection<{ key: string; failures?: number[] }>('login_throttle');
    for await (const list of lists.find({})) {
      const copied = (list.failures ?? []).map((at_ms) => ({ key: list.key, at_ms }));
      if (copied.length > 0) await failures.insertMany(copied);
      await lists.deleteOne({ _id: list._id });
    }
  },
};

export function mongoLoginThrottle(db: Db): LoginThrottleRepo {
  const failures = db.collection<FailureDoc>('login_failures');
  // One document per active lock, unique by key: the insert that wins is the one lock (and alert).
  // A conditional updateOne is not atomic on FerretDB, so the unique index decides instead.
  const locks = db.collection<{ key: string; until_ms: number }>('login_locks');
  const latest = async (key: string, limit: number) =>
    (await failures.find({ key }, { projection: { _id: 0, at_ms: 1 } }).sort({ at_ms: -1 }).limit(limit).toArray()).map((f) => f.at_ms).reverse();
  return {
    async state(key) {
      const [list, lock] = await Promise.all([latest(key, 100), locks.findOne({ key })]);
      if (list.length === 0 && !lock) return null;
      return { failures_ms: list, locked_until_ms: lock?.until_ms ?? null };
    },
    async recordFailure(key, atMs, keep) {
      // Each insert is atomic; the read after the last of parallel inserts sees them all.
      await failures.insertOne({ key, at_ms: atMs });
      return latest(key, keep);
    },
    async lock(key, untilMs, nowMs) {
      await locks.deleteOne({ key, until_ms: { $lte: nowMs } });
      try {
        await locks.insertOne({ key, until_ms: untilMs });
      } catch (err) {
        if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) return false;
        throw err;
      }
      await failures.deleteMany({ key });
      return true;
    },
    async clear(key) {
      await failures.deleteMany({ key });
    },
    async unlock(key, nowMs) {
      const lock = await locks.findOne({ key });
      await locks.deleteMany({ key });
      await failures.deleteMany({ key });
      return lock && lock.until_ms > nowMs ? lock.until_ms : null;
    },
    async locksOf(keys, nowMs) {
      const found = await locks.find({ key: { $in: [...keys] }, until_ms: { $gt: nowMs } }).toArray();
      return new Map(found.map((l) => [l.key, l.until_ms]));
    },
    async prune(failuresBeforeMs, nowMs) {
      const locksGone = (await locks.deleteMany({ until_ms: { $lte: nowMs } })).deletedCount;
      const failuresGone = (await failures.deleteMany({ at_ms: { $lt: failuresBeforeMs } })).deletedCount;
      return locksGone + failuresGone;
    },
  };
}

export function mongoStreamTickets(db: Db): StreamTicketsRepo {
  const tickets = db.collection<{ hash: string; user_id: string; expires_ms: number; session?: TicketSession | null }>('stream_tickets');
  return {
    async insert(hash, userId, expiresMs, session) {
      await tickets.insertOne({ hash, user_id: userId, expires_ms: expiresMs, session });
    },
    async consume(hash, nowMs) {
      // findOneAndDelete is not atomic on FerretDB; deleteOne's count is, so it picks the one user.
      const doc = await tickets.findOne({ hash });
      if (!doc || (await tickets.deleteOne({ hash })).deletedCount !== 1) return null;
      return doc.expires_ms > nowMs ? { user_id: doc.user_id, session: doc.session ?? null } : null;
    },
    async prune(nowMs) {
      await tickets.deleteMany({ expires_ms: { $lte: nowMs } });
    },
  };
}
