import type Database from 'better-sqlite3';
import type { CommandCompletion, CommandRecord, CommandResult, CommandsRepo } from '../commands.types.js';
import type { SqliteMigration } from './sqlite-migration.js';

export const COMMANDS_SQLITE_MIGRATION: SqliteMigration = {
  id: 18,
  name: 'agent command queue (qwinsta, logoff)',
  sql: `
    CREATE TABLE commands (
      id TEXT PRIMARY KEY,
      host_id TEXT NOT NULL,
      agent_instance_id TEXT NOT NULL,
      type TEXT NOT NULL,
      params TEXT NOT NULL,
      state TEXT NOT NULL,
      requested_by TEXT,
      origin TEXT,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      delivered_ms INTEGER,
      deliveries INTEGER NOT NULL,
      delivered_key_id TEXT,
      finished_ms INTEGER,
      expires_ms INTEGER NOT NULL,
      result TEXT
    );
    CREATE INDEX commands_by_agent ON commands (agent_instance_id, state, created_ms);
    CREATE INDEX commands_by_host ON commands (host_id, created_ms);
    CREATE INDEX commands_by_created ON commands (created_ms);
    CREATE INDEX commands_open_by_expiry ON commands (expires_ms) WHERE state IN ('queued', 'delivered');
  `,
};

interface CommandRow extends Omit<CommandRecord, 'params' | 'result'> {
  params: string;
  result: string | null;
}

const fromRow = (r: CommandRow): CommandRecord => ({
  ...r,
  params: JSON.parse(r.params) as Record<string, unknown>,
  result: r.result === null ? null : (JSON.parse(r.result) as CommandResult),
});

const toRow = (c: CommandRecord): CommandRow => ({
  ...c,
  params: JSON.stringify(c.params),
  result: c.result === null ? null : JSON.stringify(c.result),
});

/** Every state change runs in one immediate transaction, so concurrent polls and results serialise. */
export function sqliteCommands(db: Database.Database): CommandsRepo {
  const insert = db.prepare(`INSERT INTO commands (id, host_id, agent_instance_id, type, params, state, requested_by, origin,
      created_ms, updated_ms, delivered_ms, deliveries, delivered_key_id, finished_ms, expires_ms, result)
    VALUES (@id, @host_id, @agent_instance_id, @type, @params, @state, @requested_by, @origin, @created_ms, @updated_ms,
      @delivered_ms, @deliveries, @delivered_key_id, @finished_ms, @expires_ms, @result)`);
  const byId = db.prepare<[string], CommandRow>('SELECT * FROM commands WHERE id = ?');
  const openOfAgent = db.prepare<[string], CommandRow>(
    `SELECT * FROM commands WHERE agent_instance_id = ? AND state IN ('queued', 'delivered') ORDER BY created_ms, id`,
  );
  const dueExpiry = db.prepare<[number], CommandRow>(`SELECT * FROM commands WHERE state IN ('queued', 'delivered') AND expires_ms <= ?`);
  const expire = db.prepare(`UPDATE commands SET state = 'expired', finished_ms = @now, updated_ms = @now WHERE id = @id`);
  const deliver = db.prepare(
    `UPDATE commands SET state = 'delivered', delivered_ms = @now, deliveries = deliveries + 1, delivered_key_id = @key, updated_ms = @now WHERE id = @id`,
  );
  const finish = db.prepare(`UPDATE commands SET state = @state, result = @result, finished_ms = @now, updated_ms = @now WHERE id = @id`);

  const claim = db.transaction((agent: string, keyId: string, now: number, redeliverAfterMs: number, limit: number) => {
    const delivered: CommandRecord[] = [];
    const expired: CommandRecord[] = [];
    for (const row of openOfAgent.all(agent)) {
      if (row.expires_ms <= now) {
        expire.run({ id: row.id, now });
        expired.push(fromRow({ ...row, state: 'expired', finished_ms: now, updated_ms: now }));
        continue;
      }
      const due = row.state === 'queued' || (row.delivered_ms !== null && row.delivered_ms + redeliverAfterMs <= now);
      if (!due || delivered.length >= limit) continue;
      deliver.run({ id: row.id, now, key: keyId });
      delivered.push(
        fromRow({ ...row, state: 'delivered', delivered_ms: now, deliveries: row.deliveries + 1, delivered_key_id: keyId, updated_ms: now }),
      );
    }
    return { delivered, expired };
  });

  const complete = db.transaction(
    (id: string, by: { keyId: string; agentInstanceId: string | null }, result: CommandResult, now: number): CommandCompletion => {
      const row = byId.get(id);
      if (!row || row.delivered_ms === null) return { status: 'not_found' };
      if (by.agentInstanceId !== null && by.agentInstanceId !== row.agent_instance_id) return { status: 'not_found' };
      if (row.delivered_key_id !== by.keyId) return { status: 'not_found' };
      if (row.state !== 'delivered') return { status: 'already_finished', command: fromRow(row) };
      finish.run({ id, state: result.status, result: JSON.stringify(result), now });
      return { status: 'ok', command: fromRow({ ...row, state: result.status, result: JSON.stringify(result), finished_ms: now, updated_ms: now }) };
    },
  );

  const expireDue = db.transaction((now: number) =>
    dueExpiry.all(now).map((row) => {
      expire.run({ id: row.id, now });
      return fromRow({ ...row, state: 'expired', finished_ms: now, updated_ms: now });
    }),
  );

  return {
    async insert(c) {
      insert.run(toRow(c));
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    async list(q) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.host_id) {
        where.push('host_id = ?');
        params.push(q.host_id);
      }
      if (q.state) {
        where.push('state = ?');
        params.push(q.state);
      }
      if (q.before_ms !== undefined) {
        where.push('created_ms < ?');
        params.push(q.before_ms);
      }
      const sql = `SELECT * FROM commands ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_ms DESC, id DESC LIMIT ?`;
      return db.prepare<unknown[], CommandRow>(sql).all(...params, q.limit).map(fromRow);
    },
    async claimForAgent(agent, keyId, now, redeliverAfterMs, limit) {
      return claim.immediate(agent, keyId, now, redeliverAfterMs, limit);
    },
    async complete(id, by, result, now) {
      return complete.immediate(id, by, result, now);
    },
    async expireDue(now) {
      return expireDue.immediate(now);
    },
  };
}
