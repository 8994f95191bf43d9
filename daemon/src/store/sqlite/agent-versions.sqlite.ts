import type Database from 'better-sqlite3';
import type { AgentVersionRecord, AgentVersionsRepo } from '../agent-versions.types.js';

export const AGENT_VERSIONS_SQLITE_MIGRATION = {
  id: 30,
  name: 'latest agent versions read from git',
  sql: `
    CREATE TABLE agent_versions (
      product TEXT PRIMARY KEY,
      latest_version TEXT,
      [commit] TEXT,
      checked_ms INTEGER,
      error TEXT
    );
  `,
};

export const AGENT_VERSIONS_REASON_SQLITE_MIGRATION = {
  id: 60,
  name: 'agent versions: the reason code of a failed read (an unsigned release tag shows as such)',
  sql: `ALTER TABLE agent_versions ADD COLUMN error_reason TEXT;`,
};

export function sqliteAgentVersions(db: Database.Database): AgentVersionsRepo {
  const byProduct = db.prepare<[string], AgentVersionRecord>('SELECT * FROM agent_versions WHERE product = ?');
  const upsert = db.prepare(`INSERT INTO agent_versions (product, latest_version, [commit], checked_ms, error, error_reason)
    VALUES (@product, @latest_version, @commit, @checked_ms, @error, @error_reason)
    ON CONFLICT (product) DO UPDATE SET
      latest_version = CASE WHEN excluded.error IS NULL THEN excluded.latest_version ELSE agent_versions.latest_version END,
      [commit] = CASE WHEN excluded.error IS NULL THEN excluded.[commit] ELSE agent_versions.[commit] END,
      checked_ms = excluded.checked_ms,
      error = excluded.error,
      error_reason = excluded.error_reason`);
  return {
    async record(outcome) {
      upsert.run(outcome);
      return byProduct.get(outcome.product)!;
    },
    async list() {
      return db.prepare<[], AgentVersionRecord>('SELECT * FROM agent_versions ORDER BY product').all();
    },
  };
}
