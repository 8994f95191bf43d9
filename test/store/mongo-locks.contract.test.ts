import type { Db } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { LOCK_TTL_MS, withLock, withLocks } from '../../daemon/src/store/mongo/locks.mongo.js';
import { waitFor } from '../helpers/clock.js';
import { freshMongoDbPerTest } from '../helpers/stores.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The per-key store locks of the MongoDB adapter (FerretDB), leased and renewed. */
describe('MongoDB store locks (FerretDB)', () => {
  const databases = freshMongoDbPerTest('sac_locks');
  let db: Db;
  beforeEach(() => {
    db = databases.db();
  });

  it('frees the keys of a holder that died once its short lease runs out', { timeout: 60_000 }, async () => {
    expect(LOCK_TTL_MS).toBeLessThanOrEqual(5_000);
    // What a daemon killed -9 right after taking its locks leaves behind.
    const takenAt = Date.now();
    await db.collection<{ _id: string; token: string; expires_ms: number }>('locks').insertOne({ _id: 'host_state:h1', token: 'dead', expires_ms: takenAt + LOCK_TTL_MS });
    // Entered at all: a lock nobody renews but that never expired would be given up on after
    // LOCK_WAIT_MS (30 s) with an error, as a stuck one.
    const entered = await withLock(db, 'host_state:h1', async () => Date.now());
    expect(entered - takenAt).toBeGreaterThanOrEqual(LOCK_TTL_MS);
    expect(await db.collection('locks').countDocuments()).toBe(0);
  });

  it('keeps a live holder’s lock past the lease for as long as its work runs', { timeout: 60_000 }, async () => {
    const timeline: string[] = [];
    let released = 0;
    let holding!: () => void;
    const holdingNow = new Promise<void>((r) => (holding = r));
    const locks = db.collection<{ _id: string; token: string; expires_ms: number }>('locks');
    const holder = withLock(db, 'problem:k', async () => {
      timeline.push('A in');
      const { expires_ms: firstLease } = (await locks.findOne({ _id: 'problem:k' }))!;
      holding();
      // Working past the first lease by half a lease, the waiter trying all along.
      await waitFor('the first lease to have run out', () => Date.now() > firstLease + LOCK_TTL_MS / 2, LOCK_TTL_MS * 3);
      released = Date.now();
      timeline.push('A out');
    });
    await holdingNow;
    const waiter = withLock(db, 'problem:k', async () => {
      timeline.push('B in');
      return Date.now();
    });
    const [, bIn] = await Promise.all([holder, waiter]);
    expect(timeline).toEqual(['A in', 'A out', 'B in']);
    expect(bIn).toBeGreaterThanOrEqual(released);
    expect(await db.collection('locks').countDocuments()).toBe(0);
  });

  it('runs at once with the free names and waits only for the held ones', { timeout: 60_000 }, async () => {
    const rounds: string[][] = [];
    let releaseHeld!: () => void;
    const heldOpen = new Promise<void>((r) => (releaseHeld = r));
    let holding!: () => void;
    const holdingNow = new Promise<void>((r) => (holding = r));
    const other = withLock(db, 'b', async () => {
      holding();
      await heldOpen;
    });
    await holdingNow;
    const all = withLocks(db, ['a', 'b', 'c'], async (acquired) => {
      rounds.push([...acquired].sort());
      if (rounds.length === 1) {
        // Only now may the other holder let go of `b`.
        expect(await db.collection('locks').countDocuments({ _id: { $in: ['a', 'c'] } as never })).toBe(2);
        releaseHeld();
      }
    });
    await Promise.all([other, all]);
    expect(rounds).toEqual([['a', 'c'], ['b']]);
    expect(await db.collection('locks').countDocuments()).toBe(0);
  });

  it('keeps waiting while a busy name changes hands, and gives up on one held by the same holder', { timeout: 60_000 }, async () => {
    const locks = db.collection<{ _id: string; token: string; expires_ms: number }>('locks');
    // A busy name is waited for without end (within the test's time): only a stuck one is given up on.
    // The waiter looks at the holder every 16 attempts (a second or more on a loaded store): the wait
    // for one holder leaves room for a few looks.
    const limits = { waitMs: 6_000, busyWaitMs: 3_600_000 };
    // Held by others in turn, 8.4 s in all: longer than the wait for one holder.
    await locks.insertOne({ _id: 'busy', token: 'h0', expires_ms: Date.now() + 60_000 });
    let freed = false;
    const handOver = (async () => {
      for (let i = 1; i <= 12; i++) {
        await sleep(700);
        await locks.updateOne({ _id: 'busy' }, { $set: { token: `h${i}`, expires_ms: Date.now() + 60_000 } });
      }
      freed = true;
      await locks.deleteOne({ _id: 'busy' });
    })();
    let enteredFreed: boolean | null = null;
    await withLocks(db, ['busy'], async () => {
      enteredFreed = freed;
    }, limits);
    await handOver;
    expect(enteredFreed).toBe(true);

    // One holder that keeps renewing its lease: a stuck lock, given up after the wait (not waited
    // for the busy hour, which would outlast the test).
    await locks.insertOne({ _id: 'stuck', token: 'h0', expires_ms: Date.now() + 60_000 });
    await expect(withLocks(db, ['stuck'], async () => undefined, limits)).rejects.toThrow(/held by one holder for 6000 ms/);
  });
});

