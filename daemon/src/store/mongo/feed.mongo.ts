import { randomBytes } from 'node:crypto';
import { MongoBulkWriteError, MongoServerError, type Db, type WriteError } from 'mongodb';
import type { FeedRecord, FeedRepo } from '../feed.types.js';
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
  /** The position: `_id`, so the unique primary key hands each position to exactly one writer. */
  _id: number;
  o: string;
  t: number;
  /** The message as JSON text: event details may hold keys FerretDB refuses (`$…`, dotted). */
  m: string;
}

/**
 * Positions are taken by inserting at `_id` = the next free number: a unique `_id` insert is the
 * one write FerretDB makes atomic (its `$inc` is read-modify-write), so two daemons can never get
 * one position. An ordered insertMany stops at the first position another daemon took; the rest
 * go again after the newest position. Each daemon appends one batch at a time, so its own
 * messages get increasing positions; a reader may see a later position before an earlier one of
 * another daemon becomes visible (a gap), and waits for it (see cluster/feed-channel.ts).
 */
export function mongoFeed(db: Db): FeedRepo {
  const feed = db.collection<FeedDoc>('feed');
  const meta = db.collection<{ _id: string; value: string }>('feed_meta');
  let next = 0;

  async function newest(): Promise<number> {
    const top = await feed.find({}, { projection: { _id: 1 } }).sort({ _id: -1 }).limit(1).toArray();
    return top[0]?._id ?? 0;
  }

  return {
    async append(origin, messages, atMs) {
      const seqs: number[] = [];
      let rest = messages;
      for (let race = 0; rest.length > 0; race++) {
        if (race >= MAX_APPEND_RACES) throw new Error(`feed append lost ${MAX_APPEND_RACES} races in a row`);
        if (next === 0 || race > 0) next = (await newest()) + 1;
        const docs = rest.map((m, i) => ({ _id: next + i, o: origin, t: atMs, m: JSON.stringify(m) }));
        let inserted = docs.length;
        try {
          await feed.insertMany(docs, { ordered: true });
        } catch (err) {
          const writeErrors = err instanceof MongoBulkWriteError ? ([] as WriteError[]).concat(err.writeErrors ?? []) : [];
          const first = writeErrors[0];
          const duplicate = first?.code === DUPLICATE_KEY || (err instanceof MongoServerError && err.code === DUPLICATE_KEY);
          if (!duplicate) throw err;
          inserted = first ? first.index : 0;
        }
        for (let i = 0; i < inserted; i++) seqs.push(docs[i]._id);
        next += inserted;
        rest = rest.slice(inserted);
      }
      return seqs;
    },
    async after(seq, limit) {
      const docs = await feed.find({ _id: { $gt: seq } }).sort({ _id: 1 }).limit(limit).toArray();
      return docs.map((d): FeedRecord => ({ seq: d._id, origin: d.o, at_ms: d.t, message: JSON.parse(d.m) as unknown }));
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
