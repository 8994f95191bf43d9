/** One message in the cluster feed: every daemon sharing a MongoDB store reads all of them in `seq` order. */
export interface FeedRecord {
  /** Position in the feed, unique cluster-wide; a daemon's own messages get increasing positions. */
  seq: number;
  /** The daemon that published it (random per daemon start). */
  origin: string;
  at_ms: number;
  message: unknown;
}

/**
 * The cross-daemon message feed of the MongoDB store: an append-only collection polled with a
 * cursor (no change streams: FerretDB has no replica set; no TTL index: pruned by a leader job).
 * The SQLite store has none: one daemon owns it and its in-process bus is the whole feed.
 */
export interface FeedRepo {
  /** Appends the messages in order, at the next free positions; returns their positions. */
  append(origin: string, messages: unknown[], atMs: number): Promise<number[]>;
  /** Records after `seq` in position order, at most `limit`. */
  after(seq: number, limit: number): Promise<FeedRecord[]>;
  /** The highest position written, 0 when the feed is empty. */
  newest(): Promise<number>;
  /** Deletes records older than `beforeMs` (always keeping the newest); returns how many went. */
  prune(beforeMs: number): Promise<number>;
  /** The feed's identity: the same for every daemon on this store, new when the store is new. */
  epoch(): Promise<string>;
}
