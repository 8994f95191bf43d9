import type { Db } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { LOCK_TTL_MS, withLock, withLocks } from '../../daemon/src/store/mongo/locks.mongo.js';
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
    const entered = await withLock(db, 'host_state:h1', async () => Date.now());
    expect(entered - takenAt).toBeGreaterThanOrEqual(LOCK_TTL_MS);
    expect(entered - takenAt).toBeLessThan(LOCK_TTL_MS + 3_000);
    expect(await db.collection('locks').countDocuments()).toBe(0);
  });

  it('keeps a live holder’s lock past the lease for as long as its work runs', { timeout: 60_000 }, async () => {
    const timeline: string[] = [];
    let released = 0;
    const holder = withLock(db, 'problem:k', async () => {
      timeline.push('A in');
      await sleep(LOCK_TTL_MS * 1.6);
      released = Date.now();
      timeline.push('A out');
    });
    await sleep(200);
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
    const limits = { waitMs: 3_000, busyWaitMs: 20_000 };
    // Held by others in turn, each for longer than a third of the wait, 7.5 s in all.
    await locks.insertOne({ _id: 'busy', token: 'h0', expires_ms: Date.now() + 60_000 });
    const handOver = (async () => {
      for (let i = 1; i <= 3; i++) {
        await sleep(1_500);
        await locks.updateOne({ _id: 'busy' }, { $set: { token: `h${i}`, expires_ms: Date.now() + 60_000 } });
      }
      await sleep(1_500);
      await locks.deleteOne({ _id: 'busy' });
    })();
    const started = Date.now();
    const entered = await withLocks(db, ['busy'], async () => undefined, limits).then(() => Date.now() - started);
    await handOver;
    expect(entered).toBeGreaterThanOrEqual(5_500);

    // One holder that keeps renewing its lease: a stuck lock, given up after the wait.
    await locks.insertOne({ _id: 'stuck', token: 'h0', expires_ms: Date.now() + 60_000 });
    const t0 = Date.now();
    await expect(withLocks(db, ['stuck'], async () => undefined, limits)).rejects.toThrow(/held by one holder for 3000 ms/);
    expect(Date.now() - t0).toBeLessThan(6_000);
  });
});

