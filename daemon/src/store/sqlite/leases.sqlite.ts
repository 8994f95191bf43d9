import type Database from 'better-sqlite3';
import type { LeasesRepo } from '../leases.types.js';

type Db = Database.Database;

export function sqliteLeases(db: Db): LeasesRepo {
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      const res = db
        .prepare(`INSERT INTO leases (name, owner, expires_ms) VALUES (@name, @owner, @expires)
          ON CONFLICT (name) DO UPDATE SET owner = @owner, expires_ms = @expires
          WHERE leases.owner = @owner OR leases.expires_ms <= @now`)
        .run({ name, owner, expires: nowMs + ttlMs, now: nowMs });
      return res.changes === 1;
    },
    async release(name, owner) {
      db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
    },
  };
}
