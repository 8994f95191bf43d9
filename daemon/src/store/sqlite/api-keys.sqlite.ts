import type Database from 'better-sqlite3';
import type { ApiKeyRecord, ApiKeysRepo } from '../api-keys.types.js';
import type { SqliteMigration } from './sqlite-migration.js';

type Db = Database.Database;

export function sqliteApiKeys(db: Db): ApiKeysRepo {
  const touch = db.prepare('UPDATE api_keys SET last_used_ms = max(coalesce(last_used_ms, 0), ?) WHERE id = ?');
  const touchAll = db.transaction((touches: { id: string; at_ms: number }[]) => {
    for (const t of touches) touch.run(t.at_ms, t.id);
  });
  const recordAgent = db.prepare(`INSERT INTO api_key_agents (key_id, agent_instance_id, hostname, first_ms)
    VALUES (@key_id, @agent_instance_id, @hostname, @first_ms) ON CONFLICT (key_id, agent_instance_id) DO NOTHING`);
  const spokeFor = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM api_key_agents WHERE key_id = ? AND agent_instance_id = ?');
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
    async recordAgent(r) {
      recordAgent.run(r);
    },
    async spokeFor(keyId, agentInstanceId) {
      return spokeFor.get(keyId, agentInstanceId) !== undefined;
    },
  };
}

/** Migration 50: which agent installations each key has sent events for. */
export const API_KEY_AGENTS_SQLITE_MIGRATION: SqliteMigration = {
  id: 50,
  name: 'agent installations each API key has sent events for',
  sql: `
    CREATE TABLE api_key_agents (
      key_id TEXT NOT NULL,
      agent_instance_id TEXT NOT NULL,
      hostname TEXT NOT NULL,
      first_ms INTEGER NOT NULL,
      PRIMARY KEY (key_id, agent_instance_id)
    ) WITHOUT ROWID;
  `,
};
