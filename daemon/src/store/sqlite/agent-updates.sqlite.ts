import type Database from 'better-sqlite3';
import type { AgentBundle, AgentUpdateJob, AgentUpdatesRepo, BundleToken } from '../agent-updates.types.js';

export const AGENT_UPDATES_SQLITE_MIGRATION = {
  id: 31,
  name: 'agent update jobs, bundle download tokens, built bundles, desired agent configuration per host',
  sql: `
    CREATE TABLE agent_update_jobs (
      id TEXT PRIMARY KEY,
      host_id TEXT NOT NULL,
      product TEXT NOT NULL,
      from_version TEXT,
      target_version TEXT NOT NULL,
      target_commit TEXT NOT NULL,
      state TEXT NOT NULL,
      path TEXT NOT NULL,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      offered_ms INTEGER,
      requested_by TEXT NOT NULL,
      output TEXT
    );
    CREATE INDEX agent_update_jobs_by_created ON agent_update_jobs (created_ms);
    CREATE UNIQUE INDEX agent_update_jobs_one_active ON agent_update_jobs (host_id) WHERE state IN ('pending', 'started', 'fallback');
    CREATE TABLE agent_bundle_tokens (
      hash TEXT PRIMARY KEY,
      job_id TEXT NOT NULL,
      expires_ms INTEGER NOT NULL
    );
    CREATE TABLE agent_bundles (
      product TEXT NOT NULL,
      version TEXT NOT NULL,
      [commit] TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      PRIMARY KEY (product, version)
    );
    CREATE TABLE host_agent_config (
      host_id TEXT PRIMARY KEY,
      config TEXT NOT NULL,
      updated_ms INTEGER NOT NULL,
      updated_by TEXT NOT NULL
    );
  `,
};

export function sqliteAgentUpdates(db: Database.Database): AgentUpdatesRepo {
  const byId = db.prepare<[string], AgentUpdateJob>('SELECT * FROM agent_update_jobs WHERE id = ?');
  const active = db.prepare<[string], AgentUpdateJob>("SELECT * FROM agent_update_jobs WHERE host_id = ? AND state IN ('pending', 'started', 'fallback')");
  const insert = db.prepare(`INSERT INTO agent_update_jobs (id, host_id, product, from_version, target_version, target_commit, state, path, created_ms, updated_ms, offered_ms, requested_by, output)
    VALUES (@id, @host_id, @product, @from_version, @target_version, @target_commit, @state, @path, @created_ms, @updated_ms, @offered_ms, @requested_by, @output)`);
  const insertJob = db.transaction((job: AgentUpdateJob) => {
    const current = active.get(job.host_id);
    if (current) return { status: 'active' as const, job: current };
    insert.run(job);
    return { status: 'inserted' as const, job };
  });
  return {
    async insertJob(job) {
      return insertJob(job);
    },
    async byId(id) {
      return byId.get(id) ?? null;
    },
    async list(q) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (q.host_id) {
        where.push('host_id = ?');
        args.push(q.host_id);
      }
      if (q.state) {
        where.push('state = ?');
        args.push(q.state);
      }
      const sql = `SELECT * FROM agent_update_jobs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_ms DESC, id LIMIT ?`;
      return db.prepare<unknown[], AgentUpdateJob>(sql).all(...args, q.limit);
    },
    async activeForHost(hostId) {
      return active.get(hostId) ?? null;
    },
    async countInProgress(product) {
      return db
        .prepare<[string], { n: number }>("SELECT count(*) AS n FROM agent_update_jobs WHERE product = ? AND (state IN ('started', 'fallback') OR (state = 'pending' AND offered_ms IS NOT NULL))")
        .get(product)!.n;
    },
    async transition(id, from, patch, opts) {
      const sets = Object.keys(patch).map((k) => `${k} = @${k}`);
      const placeholders = from.map((_, i) => `@from${i}`).join(', ');
      const params: Record<string, unknown> = { id, ...patch };
      from.forEach((s, i) => (params[`from${i}`] = s));
      const changed = db.prepare(`UPDATE agent_update_jobs SET ${sets.join(', ')} WHERE id = @id AND state IN (${placeholders})${opts?.unoffered ? ' AND offered_ms IS NULL' : ''}`).run(params).changes;
      return changed ? byId.get(id)! : null;
    },
    async stale(beforeMs) {
      return db.prepare<[number], AgentUpdateJob>("SELECT * FROM agent_update_jobs WHERE state IN ('pending', 'started') AND updated_ms < ? ORDER BY created_ms").all(beforeMs);
    },
    async insertToken(token: BundleToken) {
      db.prepare('INSERT INTO agent_bundle_tokens (hash, job_id, expires_ms) VALUES (@hash, @job_id, @expires_ms)').run(token);
    },
    async pruneTokens(nowMs) {
      return db.prepare('DELETE FROM agent_bundle_tokens WHERE expires_ms <= ?').run(nowMs).changes;
    },
    async consumeToken(hash, nowMs) {
      return db.prepare<[string, number], BundleToken>('DELETE FROM agent_bundle_tokens WHERE hash = ? AND expires_ms > ? RETURNING *').get(hash, nowMs) ?? null;
    },
    async bundle(product, version) {
      return db.prepare<[string, string], AgentBundle>('SELECT * FROM agent_bundles WHERE product = ? AND version = ?').get(product, version) ?? null;
    },
    async putBundle(bundle) {
      db.prepare(`INSERT INTO agent_bundles (product, version, [commit], sha256, size, created_ms) VALUES (@product, @version, @commit, @sha256, @size, @created_ms)
        ON CONFLICT (product, version) DO UPDATE SET [commit] = excluded.[commit], sha256 = excluded.sha256, size = excluded.size, created_ms = excluded.created_ms`).run(bundle);
    },
    async hostConfig(hostId) {
      const row = db.prepare<[string], { config: string }>('SELECT config FROM host_agent_config WHERE host_id = ?').get(hostId);
      return row ? (JSON.parse(row.config) as Record<string, unknown>) : {};
    },
    async putHostConfig(hostId, config, atMs, by) {
      db.prepare(`INSERT INTO host_agent_config (host_id, config, updated_ms, updated_by) VALUES (?, ?, ?, ?)
        ON CONFLICT (host_id) DO UPDATE SET config = excluded.config, updated_ms = excluded.updated_ms, updated_by = excluded.updated_by`).run(hostId, JSON.stringify(config), atMs, by);
    },
  };
}
