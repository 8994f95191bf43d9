import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { OpenedByType, Problem, ProblemAssignment, ProblemMatchInput, ProblemQuery, ProblemsRepo } from '../problems.types.js';
import type { ProblemEvidence, Severity } from '../../../../shared/src/index.js';
import {
  assignedProblem,
  assignmentApplies,
  grownProblem,
  openedProblem,
  problemFacts,
  reopenedSilence,
  severityRank,
  silenceProblem,
  transitionedProblem,
} from '../problem-rules.js';
import { PROBLEM_SORT_COLUMN } from './problem-assignee.sqlite.js';
import { chunkedStatements, containsLike, hiddenSql, placeholders, typePatternSql } from './query.sqlite.js';

type Db = Database.Database;

/**
 * Migration 67: the evidence a login-intelligence rule stores with the problem it opens, in a
 * table of its own (read only by the problem detail, so problem rows and lists stay as small).
 */
export const PROBLEM_EVIDENCE_SQLITE_MIGRATION = {
  id: 67,
  name: 'problem evidence (why a login-intelligence problem opened)',
  sql: `
    CREATE TABLE problem_evidence (
      problem_id TEXT PRIMARY KEY,
      evidence TEXT NOT NULL
    ) WITHOUT ROWID;
  `,
};

interface ProblemRow extends Omit<Problem, 'comments'> {
  severity_rank: number;
  comments: string;
}

function problemFromRow(row: ProblemRow): Problem {
  const { severity_rank: _rank, comments, ...rest } = row;
  // Most problems carry no comments: skip the parse for them.
  return { ...rest, comments: comments === '[]' ? [] : (JSON.parse(comments) as Problem['comments']) };
}

interface FactGroupRow {
  actor_user: string | null;
  hostname: string | null;
  ip_address: unknown;
  source_ip: unknown;
  external_ip: unknown;
  ip: unknown;
  n: number;
}

const ACTIVE = `status IN ('open', 'acknowledged')`;

export function sqliteProblems(db: Db): ProblemsRepo {
  const byIdStmt = db.prepare<[string], ProblemRow>('SELECT * FROM problems WHERE id = ?');
  // Grouped here, so a problem of thousands of events hands over a few rows (IP_KEYS in order).
  const factsStmt = db.prepare<[string], FactGroupRow>(
    `SELECT e.actor_user AS actor_user, json_extract(e.doc, '$.host.hostname') AS hostname,
       json_extract(e.doc, '$.details.ip_address') AS ip_address, json_extract(e.doc, '$.details.source_ip') AS source_ip,
       json_extract(e.doc, '$.details.external_ip') AS external_ip, json_extract(e.doc, '$.details.ip') AS ip, COUNT(*) AS n
     FROM problem_events pe JOIN events e ON e.event_id = pe.event_id
     WHERE pe.problem_id = ? AND pe.counted = 1
     GROUP BY 1, 2, 3, 4, 5, 6`,
  );
  // INDEXED BY: without it the planner picks problems_by_status for the ORDER BY and scans every
  // active problem of every key (the lookup then slows as problems accumulate).
  const findMatch = db.prepare<[string, number, number], ProblemRow>(
    `SELECT * FROM problems INDEXED BY problems_by_key
     WHERE key = ? AND ${ACTIVE} AND first_seen_ms <= ? AND last_seen_ms >= ?
     ORDER BY last_seen_ms DESC LIMIT 1`,
  );
  // Absolute values computed from the matched row: the caller's write transaction holds the lock
  // from the read on. (RETURNING * cost three times the update itself.)
  const grow = db.prepare<[number, number, number, string, number, number, string]>(
    `UPDATE problems SET count = ?, first_seen_ms = ?, last_seen_ms = ?, severity = ?, severity_rank = ?, updated_ms = ?
     WHERE id = ?`,
  );
  const insert = db.prepare(
    `INSERT INTO problems (id, key, fingerprint, host_id, hostname, type, rule, severity, severity_rank, title, status,
       first_seen_ms, last_seen_ms, count, created_ms, updated_ms)
     VALUES (@id, @key, @fingerprint, @host_id, @hostname, @type, @rule, @severity, @severity_rank, @title, @status,
       @first_seen_ms, @last_seen_ms, @count, @created_ms, @updated_ms)`,
  );
  const insertRow = (p: Problem) => {
    const { comments: _none, acknowledged_by: _a, acknowledged_ms: _b, resolved_by: _c, resolved_by_user: _d, resolved_ms: _e, assignee_id: _f, assignee: _g, assigned_ms: _h, ...fields } = p;
    insert.run({ ...fields, severity_rank: severityRank(p.severity) });
  };
  // Every field a transition or a reopening may change.
  const rewrite = db.prepare(`UPDATE problems SET status = @status, count = @count, last_seen_ms = @last_seen_ms,
      updated_ms = @updated_ms, title = @title, acknowledged_by = @acknowledged_by, acknowledged_ms = @acknowledged_ms,
      resolved_by = @resolved_by, resolved_by_user = @resolved_by_user, resolved_ms = @resolved_ms, comments = @comments
    WHERE id = @id`);
  const rewriteRow = (p: Problem) => {
    const { id, status, count, last_seen_ms, updated_ms, title, acknowledged_by, acknowledged_ms, resolved_by, resolved_by_user, resolved_ms } = p;
    rewrite.run({
      id, status, count, last_seen_ms, updated_ms, title, acknowledged_by, acknowledged_ms, resolved_by, resolved_by_user, resolved_ms,
      comments: JSON.stringify(p.comments),
    });
  };
  // A batch's timeline rows in a few multi-row statements, not one per event.
  const linkRows = chunkedStatements(db, (rows) => `INSERT OR IGNORE INTO problem_events (problem_id, event_id, occurred_ms, counted) VALUES ${rows}`, 4);
  const writeLinks = (rows: [string, string, number, number][]) => {
    for (const [stmt, chunk] of linkRows(rows)) stmt.run(...chunk.flat());
  };

  /** One match-or-open; its links are appended to `links`. Runs inside the caller's transaction. */
  const upsertOne = (input: ProblemMatchInput, links: [string, string, number, number][]): { problem: Problem | null; created: boolean } => {
    const match = findMatch.get(input.key, input.last_ms + input.window_ms, input.first_ms - input.window_ms);
    let problem: Problem;
    if (match) {
      problem = grownProblem(problemFromRow(match), input);
      grow.run(problem.count, problem.first_seen_ms, problem.last_seen_ms, problem.severity, severityRank(problem.severity), problem.updated_ms, problem.id);
    } else {
      const opened = openedProblem(input, randomUUID());
      if (!opened) return { problem: null, created: false };
      problem = opened;
      insertRow(problem);
    }
    for (const l of input.links) links.push([problem.id, l.event_id, l.occurred_ms, l.counted ? 1 : 0]);
    return { problem, created: !match };
  };
  const insertEvidence = db.prepare<[string, string]>('INSERT OR IGNORE INTO problem_evidence (problem_id, evidence) VALUES (?, ?)');
  const evidenceStmt = db.prepare<[string], { evidence: string }>('SELECT evidence FROM problem_evidence WHERE problem_id = ?');
  const upsertAll = (inputs: ProblemMatchInput[]) => {
    const links: [string, string, number, number][] = [];
    const results = inputs.map((input) => upsertOne(input, links));
    writeLinks(links);
    results.forEach(({ problem, created }, i) => {
      const evidence = inputs[i].evidence;
      if (created && problem && evidence) insertEvidence.run(problem.id, JSON.stringify(evidence));
    });
    return results;
  };
  const transitionTx = db.transaction((id: string, from: readonly Problem['status'][], change: Parameters<ProblemsRepo['transition']>[2]) => {
    const row = byIdStmt.get(id);
    if (!row || !from.includes(row.status)) return null;
    const next = transitionedProblem(problemFromRow(row), change);
    rewriteRow(next);
    return next;
  });
  const setAssignee = db.prepare('UPDATE problems SET assignee_id = @assignee_id, assignee = @assignee, assigned_ms = @assigned_ms, updated_ms = @updated_ms WHERE id = @id');
  const assignTx = db.transaction((id: string, change: ProblemAssignment) => {
    const row = byIdStmt.get(id);
    if (!row) return null;
    const current = problemFromRow(row);
    if (!assignmentApplies(current, change)) return null;
    const next = assignedProblem(current, change);
    setAssignee.run({ id, assignee_id: next.assignee_id, assignee: next.assignee, assigned_ms: next.assigned_ms, updated_ms: next.updated_ms });
    return next;
  });
  const openSilenceTx = db.transaction((input: Parameters<ProblemsRepo['openSilence']>[0]) => {
    // One silence problem per host (a unique partial index backs this up).
    if (db.prepare('SELECT 1 FROM problems WHERE key = ?').get(input.key)) return null;
    const problem = silenceProblem(input, randomUUID());
    insertRow(problem);
    return problem;
  });
  const reopenSilenceTx = db.transaction((id: string, resolvedMs: number | null, nowMs: number, title: string) => {
    const row = byIdStmt.get(id);
    if (!row || row.status !== 'resolved' || row.resolved_ms !== resolvedMs) return null;
    const next = reopenedSilence(problemFromRow(row), nowMs, title);
    rewriteRow(next);
    return next;
  });
  // A whole ingest batch's problems in one transaction: one commit instead of one per key.
  const upsertMany = db.transaction(upsertAll);

  return {
    async upsertMatch(input) {
      return upsertMany.immediate([input])[0];
    },
    async upsertMatchMany(inputs) {
      return inputs.length === 0 ? [] : upsertMany.immediate(inputs);
    },
    async byId(id) {
      const row = byIdStmt.get(id);
      return row ? problemFromRow(row) : null;
    },
    async evidence(id) {
      const row = evidenceStmt.get(id);
      return row ? (JSON.parse(row.evidence) as ProblemEvidence) : null;
    },
    async list(q: ProblemQuery) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.statuses?.length) {
        where.push(`status IN (${placeholders(q.statuses.length)})`);
        params.push(...q.statuses);
      }
      if (q.host_ids) {
        where.push(`host_id IN (${placeholders(q.host_ids.length)})`);
        params.push(...q.host_ids);
      }
      if (q.type_prefix) where.push(`(${typePatternSql('type', [q.type_prefix], params)})`);
      if (q.rule) {
        where.push("rule LIKE ? ESCAPE '\\'");
        params.push(containsLike(q.rule));
      }
      if (q.severities?.length) {
        where.push(`severity IN (${placeholders(q.severities.length)})`);
        params.push(...q.severities);
      }
      if (q.from_ms !== undefined) {
        where.push('last_seen_ms >= ?');
        params.push(q.from_ms);
      }
      if (q.to_ms !== undefined) {
        where.push('first_seen_ms < ?');
        params.push(q.to_ms);
      }
      if (q.assignee_id !== undefined) {
        where.push(q.assignee_id === null ? 'assignee_id IS NULL' : 'assignee_id = ?');
        if (q.assignee_id !== null) params.push(q.assignee_id);
      }
      const hidden = hiddenSql('type', q.hidden, params);
      if (hidden) where.push(hidden);
      const column = PROBLEM_SORT_COLUMN[q.sort ?? 'last_seen'];
      const dir = q.dir === 'asc' ? 'ASC' : 'DESC';
      if (q.after) {
        const cmp = dir === 'ASC' ? '>' : '<';
        where.push(`(${column} ${cmp} ? OR (${column} = ? AND id ${cmp} ?))`);
        params.push(q.after.value, q.after.value, q.after.id);
      }
      params.push(q.limit);
      const sql = `SELECT * FROM problems ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY ${column} ${dir}, id ${dir} LIMIT ?`;
      return db.prepare<unknown[], ProblemRow>(sql).all(...params).map(problemFromRow);
    },
    async timeline(problemId, limit) {
      const rows = db
        .prepare<[string, number], { event_id: string; occurred_ms: number; counted: number }>(
          'SELECT event_id, occurred_ms, counted FROM problem_events WHERE problem_id = ? ORDER BY occurred_ms DESC LIMIT ?',
        )
        .all(problemId, limit);
      return rows.map((r) => ({ event_id: r.event_id, occurred_ms: r.occurred_ms, counted: r.counted === 1 }));
    },
    async facts(problemId) {
      const rows = factsStmt.all(problemId);
      return problemFacts(
        rows.map((r) => ({
          actor_user: r.actor_user,
          hostname: r.hostname,
          details: { ip_address: r.ip_address, source_ip: r.source_ip, external_ip: r.external_ip, ip: r.ip },
          n: r.n,
        })),
      );
    },
    async transition(id, from, change) {
      return transitionTx.immediate(id, from, change);
    },
    async assign(id, change) {
      return assignTx.immediate(id, change);
    },
    async activeCountsByHost(hidden) {
      const params: unknown[] = [];
      const h = hiddenSql('type', hidden, params);
      const rows = db
        .prepare<unknown[], { host_id: string; n: number }>(
          `SELECT host_id, count(*) AS n FROM problems WHERE ${ACTIVE} ${h ? `AND ${h}` : ''} GROUP BY host_id`,
        )
        .all(...params);
      return new Map(rows.map((r) => [r.host_id, r.n]));
    },
    async activeCountsBySeverity() {
      const rows = db.prepare<[], { severity: Severity; n: number }>(`SELECT severity, count(*) AS n FROM problems WHERE ${ACTIVE} GROUP BY severity`).all();
      return new Map(rows.map((r) => [r.severity, r.n]));
    },
    async counts(sinceMs, hidden, untilMs = Number.MAX_SAFE_INTEGER, hostIds) {
      const count = (cond: string, extra: unknown[]) => {
        const params: unknown[] = [...extra];
        const h = hiddenSql('type', hidden, params);
        const hosts = hostIds ? `AND host_id IN (${placeholders(hostIds.length)})` : '';
        if (hostIds) params.push(...hostIds);
        return (db.prepare(`SELECT count(*) AS n FROM problems WHERE ${cond} ${h ? `AND ${h}` : ''} ${hosts}`).get(...params) as { n: number }).n;
      };
      return {
        open: count(ACTIVE, []),
        created_active: count(`created_ms >= ? AND created_ms < ? AND ${ACTIVE}`, [sinceMs, untilMs]),
        resolved: count(`resolved_ms >= ? AND resolved_ms < ? AND status = 'resolved'`, [sinceMs, untilMs]),
      };
    },
    async openedByType(sinceMs, limit) {
      return db
        .prepare<[number, number], OpenedByType>(
          'SELECT type, rule, count(*) AS opened FROM problems WHERE created_ms >= ? GROUP BY type, rule ORDER BY opened DESC, type ASC, rule ASC LIMIT ?',
        )
        .all(sinceMs, limit);
    },
    async byKeys(keys) {
      if (keys.length === 0) return [];
      return db
        .prepare<string[], ProblemRow>(`SELECT * FROM problems WHERE key IN (${placeholders(keys.length)})`)
        .all(...keys)
        .map(problemFromRow);
    },
    async openSilence(input) {
      return openSilenceTx.immediate(input);
    },
    async reopenSilence(id, resolvedMs, nowMs, title) {
      return reopenSilenceTx.immediate(id, resolvedMs, nowMs, title);
    },
  };
}
