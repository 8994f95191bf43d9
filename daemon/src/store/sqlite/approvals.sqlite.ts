import type Database from 'better-sqlite3';
import type { ApprovalRecord, ApprovalsRepo } from '../approvals.types.js';

export const APPROVALS_SQLITE_MIGRATION = {
  id: 78,
  name: 'two-person approval requests',
  sql: `
    CREATE TABLE approvals (
      id TEXT PRIMARY KEY,
      action TEXT NOT NULL,
      request TEXT NOT NULL,
      summary TEXT NOT NULL,
      host_ids TEXT NOT NULL,
      hostnames TEXT NOT NULL,
      reason TEXT NOT NULL,
      requested_by_id TEXT NOT NULL,
      requested_by TEXT NOT NULL,
      requested_ms INTEGER NOT NULL,
      expires_ms INTEGER NOT NULL,
      state TEXT NOT NULL,
      decided_by_id TEXT,
      decided_by TEXT,
      decided_ms INTEGER,
      note TEXT,
      result TEXT
    ) WITHOUT ROWID;
    CREATE INDEX approvals_by_time ON approvals (requested_ms);
    CREATE INDEX approvals_pending ON approvals (state, expires_ms);
  `,
};

interface Row extends Omit<ApprovalRecord, 'request' | 'host_ids' | 'hostnames' | 'result'> {
  request: string;
  host_ids: string;
  hostnames: string;
  result: string | null;
}

const record = (r: Row): ApprovalRecord => ({
  ...r,
  request: JSON.parse(r.request) as ApprovalRecord['request'],
  host_ids: JSON.parse(r.host_ids) as string[],
  hostnames: JSON.parse(r.hostnames) as string[],
  result: r.result === null ? null : (JSON.parse(r.result) as ApprovalRecord['result']),
});

export function sqliteApprovals(db: Database.Database): ApprovalsRepo {
  const insert = db.prepare(
    `INSERT INTO approvals (id, action, request, summary, host_ids, hostnames, reason, requested_by_id, requested_by, requested_ms, expires_ms, state, decided_by_id, decided_by, decided_ms, note, result)
     VALUES (@id, @action, @request, @summary, @host_ids, @hostnames, @reason, @requested_by_id, @requested_by, @requested_ms, @expires_ms, @state, @decided_by_id, @decided_by, @decided_ms, @note, @result)`,
  );
  const byId = db.prepare<[string], Row>('SELECT * FROM approvals WHERE id = ?');
  const decide = db.prepare(
    `UPDATE approvals SET state = @state, decided_by_id = @decided_by_id, decided_by = @decided_by, decided_ms = @decided_ms, note = @note
     WHERE id = @id AND state = 'pending'`,
  );
  const setResult = db.prepare<[string, string]>('UPDATE approvals SET result = ? WHERE id = ?');
  const due = db.prepare<[number, number], Row>("SELECT * FROM approvals WHERE state = 'pending' AND expires_ms <= ? ORDER BY expires_ms LIMIT ?");
  return {
    async insert(r) {
      insert.run({ ...r, request: JSON.stringify(r.request), host_ids: JSON.stringify(r.host_ids), hostnames: JSON.stringify(r.hostnames), result: r.result === null ? null : JSON.stringify(r.result) });
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? record(row) : null;
    },
    async list(q) {
      const rows = q.state
        ? db.prepare<[string, number], Row>('SELECT * FROM approvals WHERE state = ? ORDER BY requested_ms DESC, id DESC LIMIT ?').all(q.state, q.limit)
        : db.prepare<[number], Row>('SELECT * FROM approvals ORDER BY requested_ms DESC, id DESC LIMIT ?').all(q.limit);
      return rows.map(record);
    },
    async decide(id, d) {
      return decide.run({ id, ...d }).changes === 1;
    },
    async setResult(id, result) {
      setResult.run(JSON.stringify(result), id);
    },
    async dueToExpire(nowMs, limit) {
      return due.all(nowMs, limit).map(record);
    },
  };
}
