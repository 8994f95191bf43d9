import type { Db } from 'mongodb';
import type { Severity } from '../../../../shared/src/index.js';
import type { RollupRow, RollupsRepo } from '../rollups.types.js';

type RollupDoc = { _id: string; bucket_ms: number; dim: RollupRow['dim']; key: string; severity: Severity; n: number };

/** Adds counter rows (negative n subtracts) in one bulk write. */
export async function addRollups(db: Db, rows: RollupRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.collection<RollupDoc>('rollups').bulkWrite(
    rows.map((r) => ({
      updateOne: {
        filter: { _id: `${r.bucket_ms}|${r.dim}|${r.key}|${r.severity}` },
        update: { $inc: { n: r.n }, $setOnInsert: { bucket_ms: r.bucket_ms, dim: r.dim, key: r.key, severity: r.severity } },
        upsert: true,
      },
    })),
    { ordered: false },
  );
}

export function mongoRollups(db: Db): RollupsRepo {
  const rollups = db.collection<RollupDoc>('rollups');
  return {
    add: (rows) => addRollups(db, rows),
    async sum(fromMs, toMs) {
      const docs = await rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs } }, { projection: { _id: 0 } }).toArray();
      const sums = new Map<string, RollupRow>();
      for (const d of docs) {
        const id = `${d.dim}|${d.key}|${d.severity}`;
        const row = sums.get(id);
        if (row) row.n += d.n;
        else sums.set(id, { bucket_ms: 0, dim: d.dim, key: d.key, severity: d.severity, n: d.n });
      }
      return [...sums.values()].filter((r) => r.n > 0);
    },
  };
}
