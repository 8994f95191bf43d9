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
/** Ids `after` looks up at once past the first one found. */
const AFTER_LOOKAHEAD = 8;
/** Least time between two full reads of the feed by `after` (see there). */
const FULL_READ_MS = 1000;

interface FeedDoc {
  /** The batch id: `_id`, so the unique primary key hands each id to exactly one writer. */
  _id: number;
  o: string;
  t: number;
  /** The messages as JSON text: event details may hold keys FerretDB refuses (`$…`, dotted). */
  m: string;
}

/**
 * Ids are taken by inserting at `_id` = the next free number: a unique `_id` insert is the one
 * write FerretDB makes atomic (its `$inc` is read-modify-write), so two daemons can never get one
 * id; the loser of a race reads the newest id and tries after it. A batch is one document — one
 * transaction in FerretDB's backend, however many messages. Each daemon appends one batch at a
 * time, so its own batches get increasing ids; a reader may see a later id before an earlier one
 * of another daemon becomes visible (a gap), and waits for it (see cluster/feed-channel.ts).
 */
export function mongoFeed(db: Db): FeedRepo {
  const feed = db.collection<FeedDoc>('feed');
  const meta = db.collection<{ _id: string; value: string }>('feed_meta');
  let next = 0;
  let lastFullRead = 0;

  async function newest(): Promise<number> {
    const top = await feed.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
    return top[0]?._id ?? 0;
  }

  return {
    async append(origin, messages, atMs) {
      const m = JSON.stringify(messages);
      for (let race = 0; race < MAX_APPEND_RACES; race++) {
        const id = next > 0 && race === 0 ? next : (await newest()) + 1;
        try {
          await feed.insertOne({ _id: id, o: origin, t: atMs, m });
          next = Math.max(next, id + 1);
          return id;
        } catch (err) {
          if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
        }
      }
      throw new Error(`feed append lost ${MAX_APPEND_RACES} races in a row`);
    },
    async after(id, limit) {
      // The ids that follow are looked up by equality, which FerretDB hands to PostgreSQL; its
      // `$gt` and sort it answers by reading the whole feed, payloads and all, at every poll of
      // every daemon. Only when the next id is not there (nothing new, or a gap: pruned records,
      // an insert not visible yet) is the feed read in full, at most once per FULL_READ_MS.
      const found: FeedDoc[] = [];
      for (let next = id + 1, window = 1; found.length < limit; window = AFTER_LOOKAHEAD) {
        const ids = Array.from({ length: Math.min(window, limit - found.length) }, (_, i) => next + i);
        const docs = await Promise.all(ids.map((n) => feed.findOne({ _id: n })));
        const missing = docs.indexOf(null);
        found.push(...(docs.slice(0, missing < 0 ? docs.length : missing) as FeedDoc[]));
        if (missing >= 0) break;
        next += ids.length;
      }
      let docs = found;
      if (found.length === 0 && Date.now() - lastFullRead >= FULL_READ_MS) {
        lastFullRead = Date.now();
        docs = await feed.find({ _id: { $gt: id } }).sort({ _id: 1 }).limit(limit).toArray();
      }
      return docs.map((d): FeedBatch => ({ id: d._id, origin: d.o, at_ms: d.t, messages: JSON.parse(d.m) as unknown[] }));
    },
    newest,
    async prune(beforeMs) {
      const top = await newest();
      const res = await feed.deleteMany({ t: { $lt: beforeMs }, _id: { $lt: top } });
      return res.deletedCount;
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
