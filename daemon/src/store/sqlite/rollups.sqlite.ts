import type Database from 'better-sqlite3';
import type { RollupRow, RollupsRepo } from '../rollups.types.js';

type Db = Database.Database;

/** Adds a counter row (negative n subtracts); runs in the caller's transaction. */
export function rollupAdder(db: Db): (r: RollupRow) => void {
  const addRollup = db.prepare(`INSERT INTO rollups (bucket_ms, dim, key, severity, n) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (bucket_ms, dim, key, severity) DO UPDATE SET n = n + excluded.n`);
  return (r) => addRollup.run(r.bucket_ms, r.dim, r.key, r.severity, r.n);
}

export function sqliteRollups(db: Db): RollupsRepo {
  const add = rollupAdder(db);
  const addAll = db.transaction((rows: RollupRow[]) => {
    for (const r of rows) add(r);
  });
  return {
    async add(rows) {
      if (rows.length > 0) addAll.immediate(rows);
    },
    async sum(fromMs, toMs) {
      return db
        .prepare<[number, number], RollupRow>(
          `SELECT 0 AS bucket_ms, dim, key, severity, sum(n) AS n FROM rollups WHERE bucket_ms >= ? AND bucket_ms <= ?
           GROUP BY dim, key, severity HAVING sum(n) > 0`,
        )
        .all(fromMs, toMs);
    },
  };
}
