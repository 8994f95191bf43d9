import type { Db } from 'mongodb';
import { GATEWAY_DETAIL_KEYS, LOOKUP_TYPES } from '../detail-lookups.js';
import type { EventDetailsQuery, EventDetailsRow } from '../events.types.js';
import type { EventDoc } from './event-doc.mongo.js';
import type { MongoMigration } from './mongo-migration.js';
import { createCollectionIfMissing, onlyDuplicates } from './query.mongo.js';

/**
 * The fields ingest looks up of the recent gateway events (store/detail-lookups.ts), one small
 * document per event. On FerretDB every query scans its collection: a lookup in `events` read
 * every stored event (decompressing each) and returned each match whole, so its cost grew with
 * the events stored. This collection holds only the lookup types' fields of the last minutes.
 */
interface LookupDoc {
  /** The event id. */
  _id: string;
  host_id: string;
  type: string;
  occurred_ms: number;
  /** `occurred_ms` in LOOKUP_BUCKET_MS: the lookups' equality filter. */
  b: number;
  /** Received time in KEEP_BUCKET_MS: what pruning deletes by (equality again). */
  rb: number;
  details: Record<string, unknown>;
}

const LOOKUP_BUCKET_MS = 10_000;
/** Widest lookup answered from buckets (the flap rule's span around a batch: seconds). */
const MAX_BUCKETS = 30;
const KEEP_BUCKET_MS = 60_000;
/** How long a lookup document is kept after its event was received. */
const KEEP_MS = 10 * 60_000;
/**
 * Lookups for events that occurred before this long ago go to `events`: their counterparts may
 * have been received too long ago to be kept here (late events: an agent's backlog).
 */
const RECENT_MS = KEEP_MS / 2;
const PRUNE_EVERY_MS = 10_000;
/** Past this many buckets to prune one by one, one query deletes them all. */
const PRUNE_STEPS_MAX = 30;

const COLLECTION = 'event_lookups';

function lookupDoc(e: Pick<EventDoc, 'event_id' | 'host_id' | 'type' | 'occurred_ms' | 'received_ms' | 'event'>): LookupDoc {
  const details: Record<string, unknown> = {};
  for (const key of GATEWAY_DETAIL_KEYS) if (e.event.details?.[key] !== undefined) details[key] = e.event.details[key];
  return {
    _id: e.event_id,
    host_id: e.host_id,
    type: e.type,
    occurred_ms: e.occurred_ms,
    b: Math.floor(e.occurred_ms / LOOKUP_BUCKET_MS),
    rb: Math.floor(e.received_ms / KEEP_BUCKET_MS),
    details,
  };
}

/**
 * Migration 44: the collection with its bucket indexes (for MongoDB: FerretDB's queries use none),
 * filled with the lookup documents of the gateway events received within KEEP_MS.
 */
export const EVENT_LOOKUPS_MONGO_MIGRATION: MongoMigration = {
  id: 44,
  name: 'event lookups: the recent gateway events’ flap fields',
  async up(db: Db) {
    await createCollectionIfMissing(db, COLLECTION);
    await db.collection(COLLECTION).createIndexes([
      { key: { b: 1 }, name: 'by_bucket' },
      { key: { rb: 1 }, name: 'by_received_bucket' },
    ]);
    const since = Date.now() - KEEP_MS;
    for (const type of LOOKUP_TYPES) {
      const recent = (await db.collection<EventDoc>('events').find({ type }).toArray()).filter((e) => e.received_ms >= since);
      if (recent.length === 0) continue;
      await db
        .collection<LookupDoc>(COLLECTION)
        .insertMany(recent.map(lookupDoc), { ordered: false })
        .catch((err: unknown) => {
          if (!onlyDuplicates(err)) throw err;
        });
    }
  },
};

export interface DetailLookups {
  /** Keeps the lookup fields of the inserted events of the lookup types (before their batch is correlated). */
  record(inserted: EventDoc[], nowMs: number): Promise<void>;
  /** True when `q` can be answered here: lookup types and fields only, recent, spanning seconds. */
  covers(q: EventDetailsQuery, nowMs: number): boolean;
  find(q: EventDetailsQuery): Promise<EventDetailsRow[]>;
}

export function mongoDetailLookups(db: Db): DetailLookups {
  const lookups = db.collection<LookupDoc>(COLLECTION);
  const types = new Set(LOOKUP_TYPES);
  const keys = new Set(GATEWAY_DETAIL_KEYS);
  let prunedBelow: number | null = null;
  let nextPruneMs = 0;
  let pruning = false;
  /** Bucket reads in flight: a batch's two lookups (both sides of the pair) share the buckets they both need. */
  const reading = new Map<number, Promise<LookupDoc[]>>();
  const bucket = (b: number): Promise<LookupDoc[]> => {
    let read = reading.get(b);
    if (!read) {
      read = lookups.find({ b }).toArray();
      reading.set(b, read);
      const done = () => reading.delete(b);
      read.then(done, done);
    }
    return read;
  };

  /** Deletes the documents received before KEEP_MS, one received minute at a time (equality: pushed down). */
  async function prune(nowMs: number): Promise<void> {
    const cutoff = Math.floor((nowMs - KEEP_MS) / KEEP_BUCKET_MS);
    if (prunedBelow === null) {
      const [oldest] = await lookups.find({}, { projection: { rb: 1 } }).sort({ rb: 1 }).limit(1).toArray();
      prunedBelow = oldest?.rb ?? cutoff;
    }
    if (cutoff - prunedBelow > PRUNE_STEPS_MAX) {
      await lookups.deleteMany({ rb: { $lt: cutoff } });
      prunedBelow = cutoff;
    }
    for (; prunedBelow < cutoff; prunedBelow++) await lookups.deleteMany({ rb: prunedBelow });
  }

  return {
    async record(inserted, nowMs) {
      const docs = inserted.filter((e) => types.has(e.type)).map(lookupDoc);
      if (docs.length > 0) {
        await lookups.insertMany(docs, { ordered: false }).catch((err: unknown) => {
          // A retried batch: its documents are there already.
          if (!onlyDuplicates(err)) throw err;
        });
      }
      if (nowMs >= nextPruneMs && !pruning) {
        nextPruneMs = nowMs + PRUNE_EVERY_MS;
        pruning = true;
        // In the background: a prune that fails is redone at the next one.
        prune(nowMs)
          .catch(() => {
            prunedBelow = null;
          })
          .finally(() => {
            pruning = false;
          });
      }
    },
    covers(q, nowMs) {
      return (
        q.types.every((t) => types.has(t)) &&
        q.keys.every((k) => keys.has(k)) &&
        q.from_ms >= nowMs - RECENT_MS &&
        Math.floor((q.to_ms - 1) / LOOKUP_BUCKET_MS) - Math.floor(q.from_ms / LOOKUP_BUCKET_MS) < MAX_BUCKETS
      );
    },
    async find(q) {
      const first = Math.floor(q.from_ms / LOOKUP_BUCKET_MS);
      const last = Math.floor((q.to_ms - 1) / LOOKUP_BUCKET_MS);
      // One equality query per bucket, all hosts and types: the hosts, types and exact times are filtered here.
      const found = await Promise.all(Array.from({ length: last - first + 1 }, (_, i) => bucket(first + i)));
      const hosts = new Set(q.host_ids);
      const wanted = new Set(q.types);
      return found
        .flat()
        .filter((d) => hosts.has(d.host_id) && wanted.has(d.type) && d.occurred_ms >= q.from_ms && d.occurred_ms < q.to_ms)
        .sort((a, b) => b.occurred_ms - a.occurred_ms || (b._id < a._id ? -1 : b._id > a._id ? 1 : 0))
        .slice(0, q.limit)
        .map((d) => ({
          event_id: d._id,
          host_id: d.host_id,
          type: d.type,
          occurred_ms: d.occurred_ms,
          details: Object.fromEntries(q.keys.filter((k) => d.details[k] !== undefined).map((k) => [k, d.details[k]])),
        }));
    },
  };
}
