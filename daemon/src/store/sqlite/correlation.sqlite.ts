import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { SEVERITIES, type Severity } from '../../../../shared/src/index.js';
import type {
  CorrelationRepo,
  EventQuery,
  HostState,
  HostStateRepo,
  LeasesRepo,
  Problem,
  ProblemMatchInput,
  ProblemQuery,
  ProblemsRepo,
  RollupRow,
} from '../correlation.types.js';
import { eventFromRow, type EventRow } from './event-row.sqlite.js';
import { searchTooBroad } from '../../errors.js';
import { ROLLUP_BUCKET_MS } from '../rollup-fold.js';
import { PROBLEM_SORT_COLUMN } from './problem-assignee.sqlite.js';

type Db = Database.Database;

/** Migration 3 (issue 4): problems and their timelines, replay fingerprints, flap marks, host state, rollups, leases. */
export const CORRELATION_SQLITE_MIGRATION = {
  id: 3,
  name: 'problems, timelines, replay fingerprints, gateway flaps, host state, rollups, job leases',
  sql: `
    CREATE TABLE problems (
      id TEXT PRIMARY KEY,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      host_id TEXT NOT NULL,
      hostname TEXT NOT NULL,
      type TEXT NOT NULL,
      rule TEXT NOT NULL,
      severity TEXT NOT NULL,
      severity_rank INTEGER NOT NULL,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      first_seen_ms INTEGER NOT NULL,
      last_seen_ms INTEGER NOT NULL,
      count INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      acknowledged_by TEXT,
      acknowledged_ms INTEGER,
      resolved_by TEXT,
      resolved_by_user TEXT,
      resolved_ms INTEGER,
      comments TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX problems_by_key ON problems (key, status);
    CREATE INDEX problems_by_status ON problems (status, last_seen_ms);
    CREATE INDEX problems_by_last_seen ON problems (last_seen_ms, id);
    CREATE INDEX problems_by_host ON problems (host_id, status);
    CREATE INDEX problems_by_created ON problems (created_ms);
    CREATE INDEX problems_by_resolved ON problems (resolved_ms);
    CREATE UNIQUE INDEX problems_one_silence_per_host ON problems (key) WHERE rule = 'host_silence';
    CREATE TABLE problem_events (
      problem_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL,
      counted INTEGER NOT NULL,
      PRIMARY KEY (problem_id, event_id)
    ) WITHOUT ROWID;
    CREATE INDEX problem_events_by_time ON problem_events (problem_id, occurred_ms);
    CREATE TABLE event_fingerprints (
      fp TEXT PRIMARY KEY,
      host_id TEXT NOT NULL,
      event_id TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX event_fingerprints_by_host ON event_fingerprints (host_id);
    CREATE TABLE rdg_flaps (
      closed_event_id TEXT PRIMARY KEY,
      opened_event_id TEXT NOT NULL,
      host_id TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX rdg_flaps_by_opened ON rdg_flaps (opened_event_id);
    CREATE INDEX rdg_flaps_by_host ON rdg_flaps (host_id);
    CREATE TABLE host_state (
      host_id TEXT PRIMARY KEY,
      heartbeat_ms INTEGER,
      status TEXT,
      inventory TEXT,
      inventory_ms INTEGER,
      previous_inventory TEXT,
      previous_inventory_ms INTEGER
    );
    CREATE TABLE rollups (
      bucket_ms INTEGER NOT NULL,
      dim TEXT NOT NULL,
      key TEXT NOT NULL,
      severity TEXT NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (bucket_ms, dim, key, severity)
    ) WITHOUT ROWID;
    CREATE TABLE leases (
      name TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      expires_ms INTEGER NOT NULL
    );
  `,
};

/**
 * Migration 15 (issue 7): cheaper correlation writes at ingest, same queries served.
 * - problem_events keyed (problem_id, occurred_ms, event_id): the key orders the timeline, so the
 *   second index goes (an event's occurred time is fixed, so the key stays unique per event).
 * - RD Gateway sessions opened and closed indexed on their own (partial indexes): the flap lookup
 *   reads a gateway host's counterparts without visiting its other events.
 */
export const CORRELATION_INGEST_SQLITE_MIGRATION = {
  id: 15,
  name: 'cheaper correlation writes: problem timeline ordered by its key, gateway session indexes',
  sql: `
    CREATE TABLE problem_events_v15 (
      problem_id TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL,
      event_id TEXT NOT NULL,
      counted INTEGER NOT NULL,
      PRIMARY KEY (problem_id, occurred_ms, event_id)
    ) WITHOUT ROWID;
    INSERT INTO problem_events_v15 (problem_id, occurred_ms, event_id, counted)
      SELECT problem_id, occurred_ms, event_id, counted FROM problem_events;
    DROP TABLE problem_events;
    ALTER TABLE problem_events_v15 RENAME TO problem_events;
    CREATE INDEX events_rdg_opened_by_host ON events (host_id, occurred_ms) WHERE type = 'rdg.connection.success';
    CREATE INDEX events_rdg_closed_by_host ON events (host_id, occurred_ms)
      WHERE type IN ('rdg.connection.disconnected', 'rdg.connection.failed');
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

const rank = (s: Severity) => SEVERITIES.indexOf(s);
const ACTIVE = `status IN ('open', 'acknowledged')`;

/** `type = p OR type LIKE 'p.%'` for each pattern; params appended to `params`. */
function typePatternSql(column: string, patterns: string[], params: unknown[]): string {
  return patterns
    .map((p) => {
      const base = p.replace(/\.\*$|\.$/, '');
      params.push(base, `${base.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`);
      return `(${column} = ? OR ${column} LIKE ? ESCAPE '\\')`;
    })
    .join(' OR ');
}

function hiddenSql(column: string, hidden: string[], params: unknown[]): string {
  return hidden.length === 0 ? '' : `NOT (${typePatternSql(column, hidden, params)})`;
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export function sqliteProblems(db: Db): ProblemsRepo {
  const byIdStmt = db.prepare<[string], ProblemRow>('SELECT * FROM problems WHERE id = ?');
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
  const insert = db.prepare<[string, string, string, string, string, string, string, string, number, string, number, number, number, number, number]>(
    `INSERT INTO problems (id, key, fingerprint, host_id, hostname, type, rule, severity, severity_rank, title, status,
       first_seen_ms, last_seen_ms, count, created_ms, updated_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?)`,
  );
  const link = db.prepare(
    'INSERT OR IGNORE INTO problem_events (problem_id, event_id, occurred_ms, counted) VALUES (?, ?, ?, ?)',
  );

  /** One match-or-open with its links; runs inside the caller's transaction. */
  const upsertOne = (input: ProblemMatchInput): { problem: Problem | null; created: boolean } => {
    const inputRank = rank(input.severity);
    const match = findMatch.get(input.key, input.last_ms + input.window_ms, input.first_ms - input.window_ms);
    let row: ProblemRow;
    if (match) {
      const higher = inputRank > match.severity_rank;
      row = {
        ...match,
        count: match.count + input.count,
        first_seen_ms: Math.min(match.first_seen_ms, input.first_ms),
        last_seen_ms: Math.max(match.last_seen_ms, input.last_ms),
        severity: higher ? input.severity : match.severity,
        severity_rank: higher ? inputRank : match.severity_rank,
        updated_ms: input.now_ms,
      };
      grow.run(row.count, row.first_seen_ms, row.last_seen_ms, row.severity, row.severity_rank, row.updated_ms, row.id);
    } else {
      if (input.count === 0) return { problem: null, created: false };
      row = {
        id: randomUUID(),
        key: input.key,
        fingerprint: input.fingerprint,
        host_id: input.host_id,
        hostname: input.hostname,
        type: input.type,
        rule: input.rule,
        severity: input.severity,
        severity_rank: inputRank,
        title: input.title,
        status: 'open',
        first_seen_ms: input.first_ms,
        last_seen_ms: input.last_ms,
        count: input.count,
        created_ms: input.now_ms,
        updated_ms: input.now_ms,
        acknowledged_by: null,
        acknowledged_ms: null,
        resolved_by: null,
        resolved_by_user: null,
        resolved_ms: null,
        assignee_id: null,
        assignee: null,
        assigned_ms: null,
        comments: '[]',
      };
      insert.run(row.id, row.key, row.fingerprint, row.host_id, row.hostname, row.type, row.rule, row.severity, inputRank,
        row.title, row.first_seen_ms, row.last_seen_ms, row.count, row.created_ms, row.updated_ms);
    }
    for (const l of input.links) link.run(row.id, l.event_id, l.occurred_ms, l.counted ? 1 : 0);
    return { problem: problemFromRow(row), created: !match };
  };
  const upsert = db.transaction(upsertOne);
  // A whole ingest batch's problems in one transaction: one commit instead of one per key.
  const upsertMany = db.transaction((inputs: ProblemMatchInput[]) => inputs.map(upsertOne));

  return {
    async upsertMatch(input) {
      return upsert.immediate(input);
    },
    async upsertMatchMany(inputs) {
      return inputs.length === 0 ? [] : upsertMany.immediate(inputs);
    },
    async byId(id) {
      const row = byIdStmt.get(id);
      return row ? problemFromRow(row) : null;
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
        where.push('rule = ?');
        params.push(q.rule);
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
    async transition(id, from, change) {
      const sets = ['status = @status', 'updated_ms = @now_ms'];
      if (change.acknowledged_by !== undefined) sets.push('acknowledged_by = @acknowledged_by', 'acknowledged_ms = @now_ms');
      if (change.resolved_by !== undefined) {
        sets.push('resolved_by = @resolved_by', 'resolved_by_user = @resolved_by_user', 'resolved_ms = @now_ms');
      }
      if (change.reopen) {
        sets.push('acknowledged_by = NULL', 'acknowledged_ms = NULL', 'resolved_by = NULL', 'resolved_by_user = NULL', 'resolved_ms = NULL');
      }
      if (change.comment) sets.push(`comments = json_insert(comments, '$[#]', json(@comment))`);
      const res = db
        .prepare(`UPDATE problems SET ${sets.join(', ')} WHERE id = @id AND status IN (${from.map((s) => `'${s}'`).join(', ')})`)
        .run({
          id,
          status: change.status,
          now_ms: change.now_ms,
          acknowledged_by: change.acknowledged_by ?? null,
          resolved_by: change.resolved_by ?? null,
          resolved_by_user: change.resolved_by_user ?? null,
          comment: change.comment ? JSON.stringify(change.comment) : null,
        });
      if (res.changes !== 1) return null;
      return problemFromRow(byIdStmt.get(id)!);
    },
    async assign(id, change) {
      const guard = change.expected_id === undefined ? '' : 'AND assignee_id IS @expected';
      const res = db
        .prepare(`UPDATE problems SET assignee_id = @assignee_id, assignee = @assignee, assigned_ms = @assigned_ms,
            updated_ms = @now WHERE id = @id ${guard}`)
        .run({
          id,
          assignee_id: change.assignee_id,
          assignee: change.assignee,
          assigned_ms: change.assignee_id === null ? null : change.now_ms,
          now: change.now_ms,
          ...(change.expected_id === undefined ? {} : { expected: change.expected_id }),
        });
      return res.changes === 1 ? problemFromRow(byIdStmt.get(id)!) : null;
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
    async counts(sinceMs, hidden, untilMs = Number.MAX_SAFE_INTEGER) {
      const count = (cond: string, extra: unknown[]) => {
        const params: unknown[] = [...extra];
        const h = hiddenSql('type', hidden, params);
        return (db.prepare(`SELECT count(*) AS n FROM problems WHERE ${cond} ${h ? `AND ${h}` : ''}`).get(...params) as { n: number }).n;
      };
      return {
        open: count(ACTIVE, []),
        created_active: count(`created_ms >= ? AND created_ms < ? AND ${ACTIVE}`, [sinceMs, untilMs]),
        resolved: count(`resolved_ms >= ? AND resolved_ms < ? AND status = 'resolved'`, [sinceMs, untilMs]),
      };
    },
    async byKeys(keys) {
      if (keys.length === 0) return [];
      return db
        .prepare<string[], ProblemRow>(`SELECT * FROM problems WHERE key IN (${placeholders(keys.length)})`)
        .all(...keys)
        .map(problemFromRow);
    },
    async openSilence(input) {
      const id = randomUUID();
      const res = db
        .prepare(`INSERT OR IGNORE INTO problems (id, key, fingerprint, host_id, hostname, type, rule, severity,
            severity_rank, title, status, first_seen_ms, last_seen_ms, count, created_ms, updated_ms)
          VALUES (@id, @key, @fingerprint, @host_id, @hostname, 'host.silence', 'host_silence', 'high', @rank, @title, 'open',
            @now_ms, @now_ms, 1, @now_ms, @now_ms)`)
        .run({ ...input, id, rank: rank('high') });
      return res.changes === 1 ? problemFromRow(byIdStmt.get(id)!) : null;
    },
    async reopenSilence(id, resolvedMs, nowMs, title) {
      const res = db
        .prepare(`UPDATE problems SET status = 'open', count = count + 1, last_seen_ms = @now, updated_ms = @now,
            title = @title, acknowledged_by = NULL, acknowledged_ms = NULL, resolved_by = NULL, resolved_by_user = NULL,
            resolved_ms = NULL WHERE id = @id AND status = 'resolved' AND resolved_ms IS @resolved`)
        .run({ id, now: nowMs, title, resolved: resolvedMs });
      return res.changes === 1 ? problemFromRow(byIdStmt.get(id)!) : null;
    },
  };
}

interface HostStateRow {
  host_id: string;
  heartbeat_ms: number | null;
  status: HostState['status'];
  inventory: string | null;
  inventory_ms: number | null;
  previous_inventory: string | null;
  previous_inventory_ms: number | null;
}

function stateFromRow(row: HostStateRow): HostState {
  return {
    ...row,
    inventory: row.inventory ? (JSON.parse(row.inventory) as Record<string, unknown>) : null,
    previous_inventory: row.previous_inventory ? (JSON.parse(row.previous_inventory) as Record<string, unknown>) : null,
  };
}

export function sqliteHostState(db: Db): HostStateRepo {
  const get = db.prepare<[string], HostStateRow>('SELECT * FROM host_state WHERE host_id = ?');
  const beat = db.prepare(`INSERT INTO host_state (host_id, heartbeat_ms) VALUES (?, ?)
    ON CONFLICT (host_id) DO UPDATE SET heartbeat_ms = max(coalesce(heartbeat_ms, 0), excluded.heartbeat_ms)`);
  const recordAll = db.transaction((items: { host_id: string; at_ms: number }[]) => {
    const previous = new Map<string, number | null>();
    for (const item of items) {
      if (!previous.has(item.host_id)) previous.set(item.host_id, get.get(item.host_id)?.heartbeat_ms ?? null);
      beat.run(item.host_id, item.at_ms);
    }
    return previous;
  });
  const replace = db.transaction((hostId: string, inventory: Record<string, unknown>, atMs: number) => {
    const row = get.get(hostId);
    if (row?.inventory_ms != null && row.inventory_ms >= atMs) return { replaced: false, previous: null };
    db.prepare(`INSERT INTO host_state (host_id, inventory, inventory_ms) VALUES (@host_id, @inv, @at)
      ON CONFLICT (host_id) DO UPDATE SET previous_inventory = inventory, previous_inventory_ms = inventory_ms,
        inventory = @inv, inventory_ms = @at`).run({ host_id: hostId, inv: JSON.stringify(inventory), at: atMs });
    return { replaced: true, previous: row?.inventory ? (JSON.parse(row.inventory) as Record<string, unknown>) : null };
  });
  // Ingest sets every heartbeating host online, per batch: prepared once.
  const setStatusStmt = db.prepare(`INSERT INTO host_state (host_id, status) VALUES (?, ?)
    ON CONFLICT (host_id) DO UPDATE SET status = excluded.status WHERE status IS NOT excluded.status`);
  return {
    async recordHeartbeats(items) {
      return items.length === 0 ? new Map() : recordAll.immediate(items);
    },
    async setStatus(hostId, status) {
      return setStatusStmt.run(hostId, status).changes === 1;
    },
    async byHost(hostId) {
      const row = get.get(hostId);
      return row ? stateFromRow(row) : null;
    },
    async list() {
      return db.prepare<[], HostStateRow>('SELECT * FROM host_state').all().map(stateFromRow);
    },
    async replaceInventory(hostId, inventory, atMs) {
      return replace.immediate(hostId, inventory, atMs);
    },
  };
}

export function sqliteCorrelation(db: Db): CorrelationRepo {
  // SQLite's lower() folds ASCII only; titles are often Cyrillic.
  db.function('sac_lower', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v));
  db.function('sac_search_budget', { deterministic: false }, (deadline: unknown) => {
    if (performance.now() > Number(deadline)) throw searchTooBroad();
    return 1;
  });
  // The fingerprint covers the host, so (host_id, fp) is as unique as fp, and deleting a host's is a key range.
  const claim = db.prepare('INSERT OR IGNORE INTO event_fingerprints (host_id, fp, event_id) VALUES (?, ?, ?)');
  const claimAll = db.transaction((items: { fp: string; host_id: string; event_id: string }[]) =>
    items.map((i) => claim.run(i.host_id, i.fp, i.event_id).changes === 1),
  );
  const addRollup = db.prepare(`INSERT INTO rollups (bucket_ms, dim, key, severity, n) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (bucket_ms, dim, key, severity) DO UPDATE SET n = n + excluded.n`);
  const addAll = db.transaction((rows: RollupRow[]) => {
    for (const r of rows) addRollup.run(r.bucket_ms, r.dim, r.key, r.severity, r.n);
  });
  const deleteAll = db.transaction((hostId: string) => {
    const gone = db.prepare('DELETE FROM hosts WHERE id = ?').run(hostId).changes === 1;
    // The dashboard's type counters lose this host's events; its host counters go altogether.
    const counted = db
      .prepare<[number, number, string], { bucket_ms: number; type: string; severity: Severity; n: number }>(
        `SELECT (occurred_ms / ?) * ? AS bucket_ms, type, severity, count(*) AS n FROM events WHERE host_id = ?
         GROUP BY 1, 2, 3`,
      )
      .all(ROLLUP_BUCKET_MS, ROLLUP_BUCKET_MS, hostId);
    for (const c of counted) addRollup.run(c.bucket_ms, 'type', c.type, c.severity, -c.n);
    db.prepare(`DELETE FROM rollups WHERE dim = 'host' AND key = ?`).run(hostId);
    db.prepare('DELETE FROM events WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM problem_events WHERE problem_id IN (SELECT id FROM problems WHERE host_id = ?)').run(hostId);
    db.prepare('DELETE FROM problems WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM event_fingerprints WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM rdg_flaps WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM host_state WHERE host_id = ?').run(hostId);
    return gone;
  });
  const pruneOldest = db.transaction((beforeMs: number, limit: number) => {
    const ids = db
      .prepare<[number, number], { event_id: string }>('SELECT event_id FROM events WHERE occurred_ms < ? ORDER BY occurred_ms LIMIT ?')
      .all(beforeMs, limit)
      .map((r) => r.event_id);
    if (ids.length === 0) return 0;
    const ph = placeholders(ids.length);
    db.prepare(`DELETE FROM rdg_flaps WHERE closed_event_id IN (${ph})`).run(...ids);
    return db.prepare(`DELETE FROM events WHERE event_id IN (${ph})`).run(...ids).changes;
  });
  const markFlapStmt = db.prepare('INSERT OR IGNORE INTO rdg_flaps (closed_event_id, opened_event_id, host_id) VALUES (?, ?, ?)');
  const setSeverity = db.prepare('UPDATE events SET severity = ? WHERE event_id = ?');
  // eventDetails statements by SQL text (one per shape of query; ingest asks the same few).
  const detailStmts = new Map<string, Database.Statement<unknown[], unknown[]>>();
  const setSeverities = db.transaction((updates: { event_id: string; severity: Severity }[]) => {
    for (const u of updates) setSeverity.run(u.severity, u.event_id);
  });
  return {
    async setStoredSeverity(updates) {
      if (updates.length > 0) setSeverities.immediate(updates);
    },
    async claimFingerprints(items) {
      return items.length === 0 ? [] : claimAll.immediate(items);
    },
    async markFlap(closedEventId, openedEventId, hostId) {
      return markFlapStmt.run(closedEventId, openedEventId, hostId).changes === 1;
    },
    async flapMarked(eventIds) {
      if (eventIds.length === 0) return new Set();
      const ph = placeholders(eventIds.length);
      const rows = db
        .prepare<string[], { closed_event_id: string; opened_event_id: string }>(
          `SELECT closed_event_id, opened_event_id FROM rdg_flaps WHERE closed_event_id IN (${ph}) OR opened_event_id IN (${ph})`,
        )
        .all(...eventIds, ...eventIds);
      return new Set(rows.flatMap((r) => [r.closed_event_id, r.opened_event_id]).filter((id) => eventIds.includes(id)));
    },
    async search(q: EventQuery) {
      const { where, params } = searchWhere(q, true);
      params.push(q.limit);
      const dir = q.order === 'asc' ? 'ASC' : 'DESC';
      const sql = `SELECT event_id, host_id, type, severity, occurred_ms, received_ms, actor_user, agent_version, doc
        FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY occurred_ms ${dir}, event_id ${dir} LIMIT ?`;
      return db.prepare<unknown[], EventRow>(sql).all(...params).map(eventFromRow);
    },
    async countMatching(q: EventQuery) {
      const { where, params } = searchWhere(q, false);
      const sql = `SELECT count(*) AS n FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
      return (db.prepare<unknown[], { n: number }>(sql).get(...params) as { n: number }).n;
    },
    async eventDetails(q) {
      // Types as literals, one as `=`: a partial index on exactly them (migration 15) is then usable.
      const literals = q.types.map((t) => `'${t.replace(/'/g, "''")}'`);
      const types = literals.length === 1 ? `type = ${literals[0]}` : `type IN (${literals.join(', ')})`;
      const sql = `SELECT event_id, host_id, type, occurred_ms, ${q.keys.map(() => 'json_extract(doc, ?)').join(', ')}
        FROM events WHERE host_id = ? AND ${types} AND occurred_ms >= ? AND occurred_ms < ?
        ORDER BY occurred_ms DESC, event_id DESC LIMIT ?`;
      let stmt = detailStmts.get(sql);
      if (!stmt) detailStmts.set(sql, (stmt = db.prepare<unknown[], unknown[]>(sql).raw()));
      const rows = stmt.all(...q.keys.map((k) => `$.details.${JSON.stringify(k)}`), q.host_id, q.from_ms, q.to_ms, q.limit);
      return rows.map(([event_id, host_id, type, occurred_ms, ...values]) => {
        const details: Record<string, unknown> = {};
        q.keys.forEach((k, i) => {
          if (values[i] !== null) details[k] = values[i];
        });
        return { event_id: event_id as string, host_id: host_id as string, type: type as string, occurred_ms: occurred_ms as number, details };
      });
    },
    async addRollups(rows) {
      if (rows.length > 0) addAll.immediate(rows);
    },
    async pruneEvents(beforeMs, limit) {
      return pruneOldest.immediate(beforeMs, limit);
    },
    async sumRollups(fromMs, toMs) {
      return db
        .prepare<[number, number], RollupRow>(
          `SELECT 0 AS bucket_ms, dim, key, severity, sum(n) AS n FROM rollups WHERE bucket_ms >= ? AND bucket_ms <= ?
           GROUP BY dim, key, severity HAVING sum(n) > 0`,
        )
        .all(fromMs, toMs);
    },
    async rollupBuckets(fromMs, toMs, dim) {
      return db
        .prepare<[number, number, string], RollupRow>(
          `SELECT bucket_ms, dim, key, severity, n FROM rollups WHERE bucket_ms >= ? AND bucket_ms <= ? AND dim = ? AND n > 0`,
        )
        .all(fromMs, toMs, dim);
    },
    async deleteHost(hostId) {
      return deleteAll.immediate(hostId);
    },
  };
}

export function sqliteLeases(db: Db): LeasesRepo {
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      const res = db
        .prepare(`INSERT INTO leases (name, owner, expires_ms) VALUES (@name, @owner, @expires)
          ON CONFLICT (name) DO UPDATE SET owner = @owner, expires_ms = @expires
          WHERE leases.owner = @owner OR leases.expires_ms <= @now`)
        .run({ name, owner, expires: nowMs + ttlMs, now: nowMs });
      return res.changes === 1;
    },
    async release(name, owner) {
      db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
    },
  };
}

/** WHERE terms of an event search; `withCursor` adds the keyset position of `after` in the query's order. */
function searchWhere(q: EventQuery, withCursor: boolean): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.event_ids) {
    where.push(`event_id IN (${placeholders(q.event_ids.length)})`);
    params.push(...q.event_ids);
  }
  if (q.host_ids) {
    where.push(`host_id IN (${placeholders(q.host_ids.length)})`);
    params.push(...q.host_ids);
  }
  if (q.severities?.length) {
    where.push(`severity IN (${placeholders(q.severities.length)})`);
    params.push(...q.severities);
  }
  if (q.type_prefix) where.push(`(${typePatternSql('type', [q.type_prefix], params)})`);
  if (q.types) {
    where.push(`type IN (${placeholders(q.types.length)})`);
    params.push(...q.types);
  }
  if (q.from_ms !== undefined) {
    where.push('occurred_ms >= ?');
    params.push(q.from_ms);
  }
  if (q.to_ms !== undefined) {
    where.push('occurred_ms < ?');
    params.push(q.to_ms);
  }
  if (q.q) {
    if ([...q.q].length >= 3) {
      // A phrase of the trigram index: any substring of title or summary, case-insensitive.
      where.push('seq IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ?)');
      params.push(`"${q.q.replace(/"/g, '""')}"`);
    } else {
      // Shorter than one trigram: the index cannot answer it, so rows are scanned — under the budget below.
      const like = `%${q.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      where.push(`(sac_lower(json_extract(doc, '$.title')) LIKE ? ESCAPE '\\' OR sac_lower(coalesce(json_extract(doc, '$.summary'), '')) LIKE ? ESCAPE '\\')`);
      params.push(like, like);
    }
  }
  if (q.actor !== undefined) {
    where.push('actor_user = ?');
    params.push(q.actor);
  }
  if (q.ip !== undefined) {
    where.push(`(${IP_PATHS.map(() => 'json_extract(doc, ?) = ?').join(' OR ')})`);
    for (const path of IP_PATHS) params.push(path, q.ip);
  }
  const hidden = hiddenSql('type', q.hidden, params);
  if (hidden) where.push(hidden);
  if (withCursor && q.after) {
    const op = q.order === 'asc' ? '>' : '<';
    where.push(`(occurred_ms ${op} ? OR (occurred_ms = ? AND event_id ${op} ?))`);
    params.push(q.after.occurred_ms, q.after.occurred_ms, q.after.event_id);
  }
  if (q.budget_ms !== undefined) {
    // Last, so it runs for every row the other terms let through: the statement is aborted
    // from inside once the budget is spent (better-sqlite3 has no interrupt from outside).
    where.push('sac_search_budget(?)');
    params.push(performance.now() + q.budget_ms);
  }
  return { where, params };
}

/** Where the agents put the remote address of an event. */
const IP_PATHS = ['$.details.ip_address', '$.details.source_ip', '$.details.external_ip'];
