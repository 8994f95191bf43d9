import { MongoBulkWriteError, MongoServerError, type Collection, type Db, type Document, type Filter, type FindOptions, type OptionalUnlessRequiredId, type WithId, type WriteError } from 'mongodb';

/** Helpers shared by the MongoDB repositories. */

export const DUPLICATE_KEY = 11000;

/** The server's answer to creating a collection that exists. */
const NAMESPACE_EXISTS = 48;

/**
 * Creates a collection unless it exists. For the collections ingest writes: FerretDB creates one
 * on its first write, under a lock of its catalogue (see migration 40, locks.mongo.ts).
 */
export async function createCollectionIfMissing(db: Db, name: string): Promise<void> {
  try {
    await db.createCollection(name);
  } catch (err) {
    if (!(err instanceof MongoServerError && err.code === NAMESPACE_EXISTS)) throw err;
  }
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/**
 * The write errors of a bulk error (the driver gives one error as an object, several as an array).
 * Empty means the failure was not per document (a lost connection, a write concern): callers must
 * treat that as a failed write, never as "all stored".
 */
export function writeErrorsOf(err: unknown): WriteError[] {
  return err instanceof MongoBulkWriteError ? ([] as WriteError[]).concat(err.writeErrors ?? []) : [];
}

/** True when a bulk insert failed only on keys that already exist (the rest went in). */
export function onlyDuplicates(err: unknown): boolean {
  const errors = writeErrorsOf(err);
  return errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY);
}

/**
 * Inserts documents keyed by a unique index, skipping the ones already stored (a re-sent event, a
 * row another daemon recorded): one insertMany, which FerretDB commits as one transaction, where
 * an upsert per document is one transaction each, run one after the other.
 */
export async function insertNew<T extends Document>(collection: Collection<T>, docs: readonly OptionalUnlessRequiredId<T>[]): Promise<void> {
  if (docs.length === 0) return;
  // Copies: the driver adds an `_id` to each document it inserts.
  await collection.insertMany(docs.map((d) => ({ ...d })), { ordered: false }).catch((err: unknown) => {
    if (!onlyDuplicates(err)) throw err;
  });
}

/** How far a pruning horizon moves before a collection pruned at ingest is pruned again. */
export const PRUNE_STEP_MS = 60_000;

/**
 * Whether a collection pruned by each batch's horizon is due: the first time, then whenever the
 * horizon has moved PRUNE_STEP_MS since this daemon last pruned. On FerretDB a `deleteMany` by
 * time scans the whole collection; once a minute rather than per batch, a row is kept at most a
 * minute past its horizon.
 */
export function pruneSchedule(): (horizonMs: number) => boolean {
  let last = Number.NEGATIVE_INFINITY;
  return (horizonMs) => {
    if (horizonMs - last < PRUNE_STEP_MS) return false;
    last = horizonMs;
    return true;
  };
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{ $regex }` matching a type pattern itself or any type below it. */
export function typePatternRegex(pattern: string): RegExp {
  return new RegExp(`^${escapeRegex(pattern.replace(/\.\*$|\.$/, ''))}(\\.|$)`);
}

export function hiddenFilter(hidden: string[]): Record<string, unknown> {
  return hidden.length === 0 ? {} : { $nor: hidden.map((p) => ({ type: typePatternRegex(p) })) };
}

export function hiddenAnd(hidden: string[]): Record<string, unknown>[] {
  return hidden.length === 0 ? [] : [hiddenFilter(hidden)];
}

/**
 * Driver operations in flight at once per `inParallel` call: below the client's pool (so other
 * work still gets a connection), enough for PostgreSQL to flush many commits per WAL sync.
 */
export const WRITES_IN_FLIGHT = 32;

/**
 * Runs `write` for every item with up to WRITES_IN_FLIGHT operations in flight, and settles when
 * all have — failing with the first error only then, so no write is still running unseen. For
 * writes to distinct documents: FerretDB runs the statements of one bulkWrite one after the other,
 * one PostgreSQL transaction (and WAL flush) each, while separate operations in flight commit together.
 */
export async function inParallel<T>(items: readonly T[], write: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      try {
        await write(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITES_IN_FLIGHT, items.length) }, worker));
  if (failure) throw (failure as { err: unknown }).err;
}

/**
 * The documents matching any of `filters`, one query each with up to WRITES_IN_FLIGHT in flight.
 * For keys of a growing collection: FerretDB hands an equality filter to PostgreSQL, but answers
 * `$in` by reading the whole collection itself — one query per key reads only that key's documents.
 */
export async function findEach<T extends Document>(collection: Collection<T>, filters: readonly Filter<T>[], options?: FindOptions): Promise<WithId<T>[]> {
  const found: WithId<T>[][] = new Array(filters.length);
  const indexed = filters.map((filter, i) => ({ filter, i }));
  await inParallel(indexed, async ({ filter, i }) => {
    found[i] = await collection.find(filter, options).toArray();
  });
  return found.flat();
}
