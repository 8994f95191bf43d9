import type Database from 'better-sqlite3';
import type { SessionRecord, SessionsRepo } from '../sessions.types.js';

export function sqliteSessions(db: Database.Database): SessionsRepo {
  const insert = db.prepare(`INSERT INTO sessions (id, user_id, created_ms, expires_ms, revoked_ms, ip)
    VALUES (@id, @user_id, @created_ms, @expires_ms, @revoked_ms, @ip)`);
  const byId = db.prepare<[string], SessionRecord>('SELECT * FROM sessions WHERE id = ?');
  const revoke = db.prepare('UPDATE sessions SET revoked_ms = coalesce(revoked_ms, ?) WHERE id = ?');
  const revokeUser = db.prepare('UPDATE sessions SET revoked_ms = ? WHERE user_id = ? AND revoked_ms IS NULL');
  const prune = db.prepare('DELETE FROM sessions WHERE expires_ms < @before OR revoked_ms < @before');
  return {
    async insert(session) {
      insert.run(session);
    },
    async byId(id) {
      return byId.get(id) ?? null;
    },
    async revoke(id, atMs) {
      return revoke.run(atMs, id).changes === 1;
    },
    async revokeUser(userId, atMs) {
      return revokeUser.run(atMs, userId).changes;
    },
    async prune(beforeMs) {
      return prune.run({ before: beforeMs }).changes;
    },
  };
}
