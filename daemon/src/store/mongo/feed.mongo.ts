import { randomBytes } from 'node:crypto';
import { MongoServerError, type Db } from 'mongodb';
import type { FeedBatch, FeedRepo } from '../feed.types.js';
import type { MongoMigration } from './mongo-migration.js';

/** Migration 38: the cluster feed's age index (pruning) and its identity document. */
export const FEED_MONGO_MIGRATION: MongoMigration = {
  id: 38,
  name: 'cluster feed',
  async up(db: Db) {
    await db.collection('feed').createIndexes([{ key: { t: 1 }, name: 'by_time' }]);
  },
};

const DUPLICATE_KEY = 11000;
/** Appends that lose the race for their positions this often in a row mean something else is wrong. */
const MAX_APPEND_RACES = 100;

interface FeedDoc {
  /** The batch id: `_id`, so the unique primary key hands each id to exactly one writer. */
  _id: number;
  o: string;
  t: number;
  /** The messages as JSON text: event details may hold keys FerretDB refuses (`$…`, dotted). */
  m: string;
}

/** Ids looked up at once (in parallel, by `_id` equality) per step of a read. */
const LOOKUP_CHUNK = 8;

const batchOf = (d: FeedDoc): FeedBatch => ({ id: d._id, origin: d.o, at_ms: d.t, messages: JSON.parse(d.m) as unknown[] });

/**
 * Ids are taken by inserting at `_id` = the next free number: a unique `_id` insert is the one
 * write FerretDB makes atomic (its `$inc` is read-modify-write), so two daemons can never get one
 * id; the loser of a race looks for the newest id again and tries after it. Every attempt finds
 * the newest id first rather than guessing from this daemon's last append: with several busy
 * daemons a guess is nearly always taken, and a lost race costs an insert that waits for the
 * winner's commit plus a retry — measured under a flood on three daemons, 315 appends raced (up
 * to 3 s each) with the guess and 109 with the lookup. It also keeps an id that was taken and
 * pruned since from being reused below the other daemons' cursors.
 *
 * An id is inserted only once the one before it is visible, so the visible ids are contiguous
 * (from the oldest not pruned to the newest). Reads therefore look ids up by `_id` equality, next
 * after next — FerretDB hands an equality to PostgreSQL, which filters the (pruned) collection and
 * returns the one document (about 3 ms) — whereas for a range or a sort on `_id` FerretDB reads and
 * decodes the whole collection itself (measured 8 ms at 100 batches, 78 ms at 1,000 and 227 ms at
 * 3,000, per poll and per append on every daemon). A range query is used only where the
 * chain is broken: a reader whose cursor was pruned (it stalled longer than the feed is kept),
 * and the first read of a store.
 *
 * A batch is one document — one transaction in FerretDB's backend, however many messages. Each
 * daemon appends one batch at a time, so its own batches get increasing ids.
 */
export function mongoFeed(db: Db): FeedRepo {
  const feed = db.collection<FeedDoc>('feed');
  const meta = db.collection<{ _id: string; value: string }>('feed_meta');
  /** The highest id this daemon has seen (appended or read): where lookups for newer ones start. */
  let known = 0;

  const byId = (id: number) => feed.findOne({ _id: id });

  /** Batches after `id` by the scan FerretDB does for a range: only where the id chain cannot be followed. */
  async function scanAfter(id: number, limit: number): Promise<FeedDoc[]> {
    return feed.find({ _id: { $gt: id } }).sort({ _id: 1 }).limit(limit).toArray();
  }

  /**
   * Batches `id + 1 …` as long as each next id exists, at most `limit`; null when `id` itself is
   * gone (pruned: the chain cannot be followed from it). An idle poll is two lookups (`id + 1`, and
   * `id` to tell "nothing new" from "pruned"); while batches are found, the next ones are looked up
   * `LOOKUP_CHUNK` at a time.
   */
  async function chainAfter(id: number, limit: number): Promise<FeedDoc[] | null> {
    const [first, self] = await Promise.all([byId(id + 1), byId(id)]);
    if (!first) return self ? [] : null;
    const out = [first];
    for (let next = id + 2; out.length < limit; next += LOOKUP_CHUNK) {
      const docs = await Promise.all(Array.from({ length: Math.min(LOOKUP_CHUNK, limit - out.length) }, (_, i) => byId(next + i)));
      for (const doc of docs) {
        if (!doc) return out;
        out.push(doc);
      }
    }
    return out;
  }

  async function newest(): Promise<number> {
    const chain = known > 0 ? await chainAfter(known, Number.MAX_SAFE_INTEGER) : null;
    if (chain) {
      known = chain.at(-1)?._id ?? known;
      return known;
    }
    const top = await feed.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
    known = top[0]?._id ?? 0;
    return known;
  }

  return {
    async append(origin, messages, atMs) {
      const m = JSON.stringify(messages);
      for (let race = 0; race < MAX_APPEND_RACES; race++) {
        const id = (await newest()) + 1;
        try {
          await feed.insertOne({ _id: id, o: origin, t: atMs, m });
          known = Math.max(known, id);
          return id;
        } catch (err) {
          if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
        }
      }
      throw new Error(`feed append lost ${MAX_APPEND_RACES} races in a row`);
    },
    async after(id, limit) {
      const docs = (id > 0 ? await chainAfter(id, limit) : null) ?? (await scanAfter(id, limit));
      if (docs.length > 0) known = Math.max(known, docs[docs.length - 1]._id);
      return docs.map(batchOf);
    },
    newest,
    async prune(beforeMs) {
      // Only a prefix of ids goes: reads follow the ids one after another, so a batch removed from
      // the middle (an old `t` above newer ones — another daemon's clock behind) would end every
      // reader's chain there. Batches up to the first one still young enough, and never the newest.
      const top = await newest();
      const young = await feed.find({ t: { $gte: beforeMs } }, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(1).toArray();
      const upTo = Math.min(top, young[0]?._id ?? top) - 1;
      if (upTo < 1) return 0;
      return (await feed.deleteMany({ _id: { $lte: upTo } })).deletedCount;
    },
    async epoch() {
      const value = randomBytes(6).toString('hex');
      try {
        await meta.insertOne({ _id: 'epoch', value });
      } catch (err) {
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
      }
      const doc = await meta.findOne({ _id: 'epoch' });
      if (!doc) throw new Error('feed epoch missing');
      return doc.value;
    },
  };
}
