/**
 * One append to the cluster feed: the messages one daemon published since its previous append,
 * stored as one document (one store write for the lot). Every daemon sharing a MongoDB store reads
 * all batches in `id` order.
 */
export interface FeedBatch {
  /** Unique cluster-wide; a daemon's own batches get increasing ids. */
  id: number;
  /** The daemon that published it (random per daemon start). */
  origin: string;
  at_ms: number;
  messages: unknown[];
}

/**
 * The cross-daemon message feed of the MongoDB store: an append-only collection polled with a
 * cursor (no change streams: FerretDB has no replica set; no TTL index: pruned by a leader job).
 * The SQLite store has none: one daemon owns it and its in-process bus is the whole feed.
 */
export interface FeedRepo {
  /** Appends the messages, in order, as one batch at the next free id; returns that id. */
  append(origin: string, messages: unknown[], atMs: number): Promise<number>;
  /** Batches after `id` in id order, at most `limit`. */
  after(id: number, limit: number): Promise<FeedBatch[]>;
  /** The highest batch id written, 0 when the feed is empty. */
  newest(): Promise<number>;
  /** Deletes batches older than `beforeMs` (always keeping the newest); returns how many went. */
  prune(beforeMs: number): Promise<number>;
  /** The feed's identity: the same for every daemon on this store, new when the store is new. */
  epoch(): Promise<string>;
}
