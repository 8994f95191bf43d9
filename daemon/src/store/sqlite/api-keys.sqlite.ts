import type Database from 'better-sqlite3';
import type { ApiKeyRecord, ApiKeysRepo } from '../api-keys.types.js';

type Db = Database.Database;

export function sqliteApiKeys(db: Db): ApiKeysRepo {
  const touch = db.prepare('UPDATE api_keys SET last_used_ms = max(coalesce(last_used_ms, 0), ?) WHERE id = ?');
  const touchAll = db.transaction((touches: { id: string; at_ms: number }[]) => {
    for (const t of touches) touch.run(t.at_ms, t.id);
  });
  return {
    async insert(r) {
      db.prepare(`INSERT INTO api_keys (id, prefix, hash, label, bound_hostname, bound_instance_id, on_mismatch, created_ms, last_used_ms, revoked_ms)
        VALUES (@id, @prefix, @hash, @label, @bound_hostname, @bound_instance_id, @on_mismatch, @created_ms, @last_used_ms, @revoked_ms)`).run(r);
    },
    async byHash(hash) {
      return db.prepare<[string], ApiKeyRecord>('SELECT * FROM api_keys WHERE hash = ?').get(hash) ?? null;
    },
    async list() {
      return db.prepare<[], ApiKeyRecord>('SELECT * FROM api_keys ORDER BY created_ms').all();
    },
    async touchMany(touches) {
      if (touches.length > 0) touchAll.immediate(touches);
    },
    async revoke(id, atMs) {
      return db.prepare('UPDATE api_keys SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL').run(atMs, id).changes === 1;
    },
  };
}
