import { randomUUID } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { DUPLICATE_KEY, writeErrorsOf } from './query.mongo.js';

const LOCK_TTL_MS = 30_000;
const LOCK_WAIT_MS = 30_000;

type LockDoc = { _id: string; token: string; expires_ms: number };

/**
 * Short mutual-exclusion locks built on the one primitive FerretDB makes atomic: a unique `_id`
 * insert. FerretDB (no transactions) applies even `$inc` and compare-and-set updates as
 * read-modify-write of the whole document, so every write of a problem (and of a host's state)
 * happens under the lock of its key. Expiry is wall-clock: it only frees the lock of a crashed daemon.
 *
 * All free names are taken with one insertMany and `fn` runs with those; the names held elsewhere
 * are tried again (with backoff) only after that. Never waiting for a lock while holding one keeps
 * two callers with overlapping names from deadlocking.
 */
/**
 * Deletes lock documents now or, when the store does not answer (an outage), retries in the
 * background until it does or the locks expire: otherwise every lock held when the store went
 * away would block its key — one host's ingest — for the whole LOCK_TTL_MS after it came back.
 */
async function releaseLocks(locks: Collection<LockDoc>, filter: Filter<LockDoc>, expiresMs: number): Promise<void> {
  try {
    await locks.deleteMany(filter);
  } catch (err) {
    const retry = () => {
      if (Date.now() > expiresMs) return;
      locks.deleteMany(filter).catch(() => setTimeout(retry, RELEASE_RETRY_MS).unref());
    };
    setTimeout(retry, RELEASE_RETRY_MS).unref();
    throw err;
  }
}

const RELEASE_RETRY_MS = 100;

export async function withLocks(db: Db, names: string[], fn: (acquired: string[]) => Promise<void>): Promise<void> {
  const locks = db.collection<LockDoc>('locks');
  const deadline = Date.now() + LOCK_WAIT_MS;
  let waiting = [...new Set(names)];
  for (let attempt = 0; waiting.length > 0; attempt++) {
    const token = randomUUID();
    const expires = Date.now() + LOCK_TTL_MS;
    const held = new Set<number>();
    try {
      await locks.insertMany(waiting.map((name) => ({ _id: name, token, expires_ms: expires })), { ordered: false });
    } catch (err) {
      const errors = writeErrorsOf(err);
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) {
        // Some names may have been taken before the failure: free them now, not in LOCK_TTL_MS.
        await releaseLocks(locks, { token }, expires).catch(() => undefined);
        throw err;
      }
      for (const e of errors) held.add(e.index);
      // A retried insert whose first try landed (its answer lost to a dropped connection) finds
      // our own token: those names are ours, not another holder's.
      if (held.size > 0) {
        const mine = await locks.find({ _id: { $in: waiting.filter((_, i) => held.has(i)) }, token }).toArray();
        for (const doc of mine) held.delete(waiting.indexOf(doc._id));
      }
    }
    const acquired = waiting.filter((_, i) => !held.has(i));
    if (acquired.length > 0) {
      try {
        await fn(acquired);
      } finally {
        await releaseLocks(locks, { _id: { $in: acquired }, token }, expires);
      }
    }
    waiting = waiting.filter((_, i) => held.has(i));
    if (waiting.length === 0) return;
    // Only now and then look for holders that died (their lease ran out).
    if (attempt % 16 === 15) {
      for (const stale of await locks.find({ _id: { $in: waiting }, expires_ms: { $lt: Date.now() } }).toArray()) {
        await locks.deleteOne({ _id: stale._id, token: stale.token });
      }
    }
    if (Date.now() > deadline) throw new Error(`lock ${waiting[0]} not acquired within ${LOCK_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 2 + Math.random() * Math.min(2 * (attempt + 1), 20)));
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
