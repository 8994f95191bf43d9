import type Database from 'better-sqlite3';
import type { LeasesRepo } from '../leases.types.js';

type Db = Database.Database;

/** Migration 41: lease fencing tokens (see leases.types.ts). */
export const LEASE_TOKENS_SQLITE_MIGRATION = {
  id: 41,
  name: 'lease fencing tokens',
  sql: `ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;`,
};

export function sqliteLeases(db: Db): LeasesRepo {
  // One statement: a new owner (or a lease from before tokens) gets the next token, a renewal keeps it.
  // Prepared on first use: the store is built before its migrations run.
  const acquire = () => db.prepare<{ name: string; owner: string; expires: number; now: number }, { token: number }>(
    `INSERT INTO leases (name, owner, expires_ms, token) VALUES (@name, @owner, @expires, 1)
      ON CONFLICT (name) DO UPDATE SET owner = @owner, expires_ms = @expires,
        token = CASE WHEN leases.owner = @owner AND leases.token > 0 THEN leases.token ELSE leases.token + 1 END
      WHERE leases.owner = @owner OR leases.expires_ms <= @now
      RETURNING token`,
  );
  const token = () => db.prepare<[string], { token: number }>('SELECT token FROM leases WHERE name = ?');
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      return acquire().get({ name, owner, expires: nowMs + ttlMs, now: nowMs })?.token ?? null;
    },
    async release(name, owner) {
      db.prepare('UPDATE leases SET expires_ms = 0 WHERE name = ? AND owner = ?').run(name, owner);
    },
    async token(name) {
      return token().get(name)?.token ?? 0;
    },
  };
}
