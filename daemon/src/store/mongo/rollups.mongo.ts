import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import type { Severity } from '../../../../shared/src/index.js';
import type { RollupRow, RollupsRepo } from '../rollups.types.js';
import { inParallel } from './query.mongo.js';

type RollupDoc = { _id: string; bucket_ms: number; dim: RollupRow['dim']; key: string; severity: Severity; n: number; writer?: string };

/**
 * Adds counter rows (negative n subtracts), the rows of a call written in parallel (each its own
 * document, so they commit together in PostgreSQL instead of one after the other). Counters stay exact with
 * several daemons on one store: FerretDB applies `$inc` as read-modify-write of the document, so
 * two writers incrementing one document can lose an increment. Each writer (one per opened store,
 * i.e. per daemon) therefore keeps its own partial documents and writes them one call at a time;
 * `sum` adds the partials up at read time.
 */
export function rollupWriter(db: Db): (rows: RollupRow[]) => Promise<void> {
  const rollups = db.collection<RollupDoc>('rollups');
  const writer = randomBytes(6).toString('hex');
  let last: Promise<void> = Promise.resolve();
  const write = async (rows: RollupRow[]) => {
    await inParallel(rows, (r) =>
      rollups.updateOne(
        { _id: `${r.bucket_ms}|${r.dim}|${r.key}|${r.severity}|${writer}` },
        { $inc: { n: r.n }, $setOnInsert: { bucket_ms: r.bucket_ms, dim: r.dim, key: r.key, severity: r.severity, writer } },
        { upsert: true },
      ),
    );
  };
  return (rows) => {
    if (rows.length === 0) return Promise.resolve();
    const run = last.then(() => write(rows));
    last = run.catch(() => undefined);
    return run;
  };
}

export function mongoRollups(db: Db): RollupsRepo {
  const rollups = db.collection<RollupDoc>('rollups');
  return {
    add: rollupWriter(db),
    async sum(fromMs, toMs) {
      const docs = await rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs } }, { projection: { _id: 0, writer: 0 } }).toArray();
      const sums = new Map<string, RollupRow>();
      for (const d of docs) {
        const id = `${d.dim}|${d.key}|${d.severity}`;
        const row = sums.get(id);
        if (row) row.n += d.n;
        else sums.set(id, { bucket_ms: 0, dim: d.dim, key: d.key, severity: d.severity, n: d.n });
      }
      return [...sums.values()].filter((r) => r.n > 0);
    },
    async buckets(fromMs, toMs, dim) {
      return rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs }, dim, n: { $gt: 0 } }, { projection: { _id: 0 } }).toArray();
    },
  };
}
