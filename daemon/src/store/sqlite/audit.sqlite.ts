import type Database from 'better-sqlite3';
import type { AuditEntry, AuditQuery, AuditRepo } from '../audit.types.js';

interface AuditRow extends Omit<AuditEntry, 'details'> {
  details: string;
}

/** The WHERE clause of the filters and its parameters. */
function whereOf(q: Omit<AuditQuery, 'limit'>): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.action?.endsWith('.')) {
    where.push('substr(action, 1, ?) = ?');
    params.push(q.action.length, q.action);
  } else if (q.action) {
    where.push('action = ?');
    params.push(q.action);
  }
  if (q.actor) {
    where.push('actor_username = ? COLLATE NOCASE');
    params.push(q.actor);
  }
  if (q.target) {
    where.push('target = ?');
    params.push(q.target);
  }
  if (q.outcome) {
    where.push('outcome = ?');
    params.push(q.outcome);
  }
  if (q.from_ms !== undefined) {
    where.push('at_ms >= ?');
    params.push(q.from_ms);
  }
  if (q.before_ms !== undefined && q.before_id !== undefined) {
    // After the cursor entry in the list's order (at_ms, then insertion), or before its time when it is gone.
    where.push('(at_ms < ? OR (at_ms = ? AND seq < coalesce((SELECT seq FROM audit_log WHERE id = ? AND at_ms = ?), -1)))');
    params.push(q.before_ms, q.before_ms, q.before_id, q.before_ms);
  } else if (q.before_ms !== undefined) {
    where.push('at_ms < ?');
    params.push(q.before_ms);
  }
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
}

export function sqliteAudit(db: Database.Database): AuditRepo {
  const insert = db.prepare(`INSERT INTO audit_log (id, at_ms, actor_id, actor_username, ip, action, target, outcome, details)
    VALUES (@id, @at_ms, @actor_id, @actor_username, @ip, @action, @target, @outcome, @details)`);
  return {
    async insert(e) {
      insert.run({ ...e, details: JSON.stringify(e.details) });
    },
    async list(q) {
      const { sql: where, params } = whereOf(q);
      const sql = `SELECT id, at_ms, actor_id, actor_username, ip, action, target, outcome, details FROM audit_log
        ${where} ORDER BY at_ms DESC, seq DESC LIMIT ?`;
      const rows = db.prepare<unknown[], AuditRow>(sql).all(...params, q.limit);
      return rows.map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> }));
    },
    async count(q) {
      const { sql: where, params } = whereOf(q);
      return (db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM audit_log ${where}`).get(...params) as { n: number }).n;
    },
    async prune(beforeMs) {
      return db.prepare('DELETE FROM audit_log WHERE at_ms < ?').run(beforeMs).changes;
    },
  };
}
