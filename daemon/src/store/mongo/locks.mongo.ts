import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
// The store is opened without the daemon's clock: its timers keep the database healthy in real
// (wall) time, which daemons sharing it compare, whatever time a test gives the services.
import { systemClock } from '../../clock.js';
import type { MongoMigration } from './mongo-migration.js';
import { createCollectionIfMissing, DUPLICATE_KEY, writeErrorsOf } from './query.mongo.js';

/**
 * Migration 40: the collections ingest writes that no index migration creates, created at start-up.
 * FerretDB creates a collection on its first write, under a lock of its catalogue; the first
 * ingest burst did that with every connection to PostgreSQL in use, which is how FerretDB 1.24
 * was seen to stop answering (see scripts/ferretdb.ts).
 */
export const INGEST_COLLECTIONS_MONGO_MIGRATION: MongoMigration = {
  id: 40,
  name: 'collections written at ingest created up front',
  async up(db: Db) {
    for (const name of ['locks', 'host_state', 'feed_meta', 'leases']) await createCollectionIfMissing(db, name);
  },
};

/**
 * A lock's lease. Short, so that the locks of a daemon that died (kill -9, power loss) free their
 * keys — one host's ingest — within seconds; a live holder renews it every LOCK_RENEW_MS for as
 * long as its work runs, however slow the store.
 */
export const LOCK_TTL_MS = 5_000;
const LOCK_RENEW_MS = Math.floor(LOCK_TTL_MS / 3);
/**
 * A waiter gives up when the same holder has kept a name this long (a stuck lock) or, however busy
 * the name, after LOCK_BUSY_WAIT_MS. A queue of callers after one hot key takes turns: the lock
 * changing hands is progress, and each turn is a few store round trips, slow on a loaded store.
 */
const LOCK_WAIT_MS = 30_000;
const LOCK_BUSY_WAIT_MS = 120_000;

type LockDoc = { _id: string; token: string; expires_ms: number };

/**
 * Deletes lock documents now or, when the store does not answer (an outage), retries in the
 * background until it does or the leases run out: otherwise every lock held when the store went
 * away would block its key until its lease ran out after it came back.
 */
async function releaseLocks(locks: Collection<LockDoc>, filter: Filter<LockDoc>, expiresMs: () => number): Promise<void> {
  try {
    await locks.deleteMany(filter);
  } catch (err) {
    const retry = () => {
      if (Date.now() > expiresMs()) return;
      locks.deleteMany(filter).catch(() => systemClock.setTimeout(retry, RELEASE_RETRY_MS));
    };
    systemClock.setTimeout(retry, RELEASE_RETRY_MS);
    throw err;
  }
}

const RELEASE_RETRY_MS = 100;

/**
 * Runs `fn` while renewing the lease of `names` (held under `token`); resolves with the time the
 * last renewal extended them to. A renewal that fails is left to the next one: at worst the lease
 * runs out, as it would had this daemon died.
 */
async function whileRenewed(locks: Collection<LockDoc>, names: string[], token: string, expires: number, fn: () => Promise<void>): Promise<() => number> {
  let until = expires;
  const timer = systemClock.setInterval(() => {
    const next = Date.now() + LOCK_TTL_MS;
    locks.updateMany({ _id: { $in: names }, token }, { $set: { expires_ms: next } }).then(
      () => {
        until = Math.max(until, next);
      },
      () => undefined,
    );
  }, LOCK_RENEW_MS);
  try {
    await fn();
  } finally {
    timer.cancel();
  }
  return () => until;
}

/**
 * Short mutual-exclusion locks built on the one primitive FerretDB makes atomic: a unique `_id`
 * insert. FerretDB (no transactions) applies even `$inc` and compare-and-set updates as
 * read-modify-write of the whole document, so every write of a problem (and of a host's state)
 * happens under the lock of its key. The lease (LOCK_TTL_MS, wall clock) only frees the locks of
 * a daemon that died; a live holder renews it.
 *
 * All free names are taken with one insertMany and `fn` runs with those; the names held elsewhere
 * are tried again (with backoff) only after that. Never waiting for a lock while holding one keeps
 * two callers with overlapping names from deadlocking. Names seen held are left out of the insert:
 * FerretDB commits an insertMany as one transaction, but one that hits an existing key is
 * redone document by document, one transaction each.
 */
export async function withLocks(
  db: Db,
  names: string[],
  fn: (acquired: string[]) => Promise<void>,
  limits: { waitMs: number; busyWaitMs: number } = { waitMs: LOCK_WAIT_MS, busyWaitMs: LOCK_BUSY_WAIT_MS },
): Promise<void> {
  const locks = db.collection<LockDoc>('locks');
  const started = Date.now();
  let deadline = started + limits.waitMs;
  /** The holder's token of each waited-for name at the last look. */
  const holders = new Map<string, string>();
  /**
   * Notes the holders of names this caller could not take, on every failed attempt (the look costs
   * no extra round trip): a name that changed hands is busy, not stuck, so the wait goes on; a
   * holder whose lease ran out (its daemon died) is removed.
   */
  const observe = async (docs: LockDoc[]) => {
    const now = Date.now();
    for (const d of docs) {
      const last = holders.get(d._id);
      if (last !== undefined && last !== d.token) deadline = Math.min(now + limits.waitMs, started + limits.busyWaitMs);
      holders.set(d._id, d.token);
      // Only if not renewed meanwhile: the lease is part of the filter.
      if (d.expires_ms < now) await locks.deleteOne({ _id: d._id, token: d.token, expires_ms: d.expires_ms });
    }
  };
  let waiting = [...new Set(names)];
  for (let attempt = 0; waiting.length > 0; attempt++) {
    const token = randomUUID();
    const expires = Date.now() + LOCK_TTL_MS;
    const held = new Set<number>();
    if (waiting.length > 1) {
      const seen = await locks.find({ _id: { $in: waiting } }).toArray();
      const seenIds = new Set(seen.map((d) => d._id));
      waiting.forEach((name, i) => seenIds.has(name) && held.add(i));
      await observe(seen);
    }
    const free = waiting.filter((_, i) => !held.has(i));
    try {
      if (free.length > 0) await locks.insertMany(free.map((name) => ({ _id: name, token, expires_ms: expires })), { ordered: false });
    } catch (err) {
      const errors = writeErrorsOf(err);
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) {
        // Some names may have been taken before the failure: free them now, not when the lease runs out.
        await releaseLocks(locks, { token }, () => expires).catch(() => undefined);
        throw err;
      }
      const lost = errors.map((e) => free[e.index]!);
      // A retried insert whose first try landed (its answer lost to a dropped connection) finds
      // our own token: those names are ours, not another holder's.
      const docs = await locks.find({ _id: { $in: lost } }).toArray();
      const mine = new Set(docs.filter((d) => d.token === token).map((d) => d._id));
      for (const name of lost) if (!mine.has(name)) held.add(waiting.indexOf(name));
      await observe(docs.filter((d) => d.token !== token));
    }
    const acquired = waiting.filter((_, i) => !held.has(i));
    if (acquired.length > 0) {
      const until = await whileRenewed(locks, acquired, token, expires, () => fn(acquired)).catch(async (err: unknown) => {
        await releaseLocks(locks, { _id: { $in: acquired }, token }, () => Date.now() + LOCK_TTL_MS);
        throw err;
      });
      await releaseLocks(locks, { _id: { $in: acquired }, token }, until);
    }
    waiting = waiting.filter((_, i) => held.has(i));
    if (waiting.length === 0) return;
    if (Date.now() > deadline) throw new Error(`lock ${waiting[0]} not acquired: held by one holder for ${limits.waitMs} ms, or busy for ${limits.busyWaitMs} ms`);
    // Growing with the wait: a hundred callers after one key must not keep the store busy refusing them.
    await systemClock.sleep(2 + Math.random() * Math.min(2 * (attempt + 1), 50));
  }
}

/** `withLocks` for one name. */
export async function withLock<T>(db: Db, name: string, fn: () => Promise<T>): Promise<T> {
  let result!: T;
  await withLocks(db, [name], async () => {
    result = await fn();
  });
  return result;
}
