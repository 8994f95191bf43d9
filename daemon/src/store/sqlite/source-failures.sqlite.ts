import type Database from 'better-sqlite3';
import type { SourceFailure, SourceFailuresRepo } from '../source-failures.types.js';
import { placeholders } from './query.sqlite.js';

export const SOURCE_FAILURES_SQLITE_MIGRATION = {
  id: 63,
  name: 'failed logins by source address (success after failures, distributed brute force)',
  sql: `
    CREATE TABLE source_failures (
      event_id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      host_id TEXT NOT NULL,
      hostname TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX source_failures_by_address ON source_failures (address, occurred_ms);
    CREATE INDEX source_failures_by_time ON source_failures (occurred_ms);
  `,
};

export function sqliteSourceFailures(db: Database.Database): SourceFailuresRepo {
  const insert = db.prepare<SourceFailure>(
    'INSERT OR IGNORE INTO source_failures (event_id, address, host_id, hostname, occurred_ms) VALUES (@event_id, @address, @host_id, @hostname, @occurred_ms)',
  );
  const prune = db.prepare<[number]>('DELETE FROM source_failures WHERE occurred_ms < ?');
  const recordTx = db.transaction((rows: SourceFailure[], pruneBeforeMs: number) => {
    for (const row of rows) insert.run(row);
    prune.run(pruneBeforeMs);
  });
  return {
    async record(rows, pruneBeforeMs) {
      recordTx(rows, pruneBeforeMs);
    },
    async list(q) {
      if (q.addresses.length === 0) return [];
      return db
        .prepare<unknown[], SourceFailure>(
          `SELECT event_id, address, host_id, hostname, occurred_ms FROM source_failures
           WHERE address IN (${placeholders(q.addresses.length)}) AND occurred_ms BETWEEN ? AND ?
           ORDER BY occurred_ms DESC, event_id DESC LIMIT ?`,
        )
        .all(...q.addresses, q.from_ms, q.to_ms, q.limit);
    },
  };
}
