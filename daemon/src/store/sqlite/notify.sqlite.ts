import type Database from 'better-sqlite3';
import type { NotifyChannel as Channel } from '../../../../shared/src/index.js';
import type {
  DailyReportListItem,
  DailyReportRecord,
  OutboxRecord,
  OutboxRepo,
  PushRepo,
  PushSubscriptionRecord,
  PushUpsert,
  ReportsRepo,
} from '../notify.types.js';
import { retryGrant } from '../outbox-rules.js';
import { eventFromRow, type EventRow } from './event-row.sqlite.js';

type Db = Database.Database;

/** Attempts kept in a delivery log row. */
export const OUTBOX_HISTORY_LIMIT = 20;

interface OutboxRow extends Omit<OutboxRecord, 'content' | 'history'> {
  content: string;
  history: string;
}

function outboxFromRow(row: OutboxRow): OutboxRecord {
  return { ...row, content: JSON.parse(row.content), history: JSON.parse(row.history) };
}

export function sqliteOutbox(db: Db): OutboxRepo {
  const insert = db.prepare(`INSERT INTO outbox (id, topic, channel, target, ref, content, status, attempts, max_attempts,
      next_attempt_ms, lease_until_ms, created_ms, updated_ms, sent_ms, last_error, history)
    VALUES (@id, @topic, @channel, @target, @ref, @content, @status, @attempts, @max_attempts, @next_attempt_ms,
      @lease_until_ms, @created_ms, @updated_ms, @sent_ms, @last_error, @history)`);
  const byId = db.prepare<[string], OutboxRow>('SELECT * FROM outbox WHERE id = ?');
  const due = db.prepare<[Channel, number, number, number], OutboxRow>(`SELECT * FROM outbox WHERE channel = ?
      AND ((status = 'pending' AND next_attempt_ms <= ?) OR (status = 'sending' AND lease_until_ms < ?))
    ORDER BY next_attempt_ms LIMIT ?`);
  const lease = db.prepare(`UPDATE outbox SET status = 'sending', lease_until_ms = ?, updated_ms = ? WHERE id = ?`);
  const insertAll = db.transaction((records: OutboxRecord[]) => {
    for (const r of records) insert.run({ ...r, content: JSON.stringify(r.content), history: JSON.stringify(r.history) });
  });
  const claim = db.transaction((channel: Channel, nowMs: number, limit: number, leaseUntilMs: number) => {
    const rows = due.all(channel, nowMs, nowMs, limit);
    for (const row of rows) lease.run(leaseUntilMs, nowMs, row.id);
    return rows.map((row) => outboxFromRow({ ...row, status: 'sending', lease_until_ms: leaseUntilMs, updated_ms: nowMs }));
  });
  const record = db.transaction((id: string, r: Parameters<OutboxRepo['recordAttempt']>[1]) => {
    const row = byId.get(id);
    if (!row) return;
    const history = [...(JSON.parse(row.history) as OutboxRecord['history']), r.attempt].slice(-OUTBOX_HISTORY_LIMIT);
    db.prepare(`UPDATE outbox SET status = ?, attempts = attempts + 1, next_attempt_ms = ?, last_error = ?, lease_until_ms = NULL,
        updated_ms = ?, sent_ms = ?, history = ? WHERE id = ?`).run(
      r.status,
      r.next_attempt_ms,
      r.last_error,
      r.attempt.at_ms,
      r.status === 'sent' ? r.attempt.at_ms : null,
      JSON.stringify(history),
      id,
    );
  });
  const retry = db.transaction((id: string, nowMs: number) => {
    const row = byId.get(id);
    const before = row ? outboxFromRow(row) : null;
    const grant = before && retryGrant(before, nowMs);
    if (!before || !grant) return null;
    db.prepare(`UPDATE outbox SET status = @status, next_attempt_ms = @next_attempt_ms, max_attempts = @max_attempts,
        updated_ms = @updated_ms WHERE id = @id`).run({ ...grant, id });
    return { ...before, ...grant };
  });
  return {
    async insertMany(records) {
      if (records.length > 0) insertAll.immediate(records);
    },
    async claimDue(channel, nowMs, limit, leaseUntilMs) {
      // Looked for outside a write transaction first: the dispatcher polls every channel, and each
      // write transaction on this (the main) thread waits, event loop blocked, for the ingest
      // thread's batch to commit. Most polls find nothing due.
      if (due.all(channel, nowMs, nowMs, 1).length === 0) return [];
      return claim.immediate(channel, nowMs, limit, leaseUntilMs);
    },
    async recordAttempt(id, result) {
      record.immediate(id, result);
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? outboxFromRow(row) : null;
    },
    async countPending() {
      return (db.prepare(`SELECT count(*) AS n FROM outbox WHERE status = 'pending'`).get() as { n: number }).n;
    },
    async list(f) {
      const conditions: [string, string | number | undefined][] = [
        ['status = ?', f.status],
        ['channel = ?', f.channel],
        ['topic = ?', f.topic],
        ['created_ms < ?', f.before_ms],
      ];
      const used = conditions.filter(([, v]) => v !== undefined) as [string, string | number][];
      const where = used.map(([c]) => c);
      const args = used.map(([, v]) => v);
      const sql = `SELECT * FROM outbox ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_ms DESC, id LIMIT ?`;
      return db.prepare<(string | number)[], OutboxRow>(sql).all(...args, f.limit).map(outboxFromRow);
    },
    async retryNow(id, nowMs) {
      return retry.immediate(id, nowMs);
    },
    async carriers(topic, ref) {
      const rows = db
        .prepare<[string, string], { channel: Channel }>(`SELECT DISTINCT channel FROM outbox WHERE topic = ? AND ref = ? AND status NOT IN ('failed', 'suppressed')`)
        .all(topic, ref);
      return rows.map((r) => r.channel);
    },
    async prune(beforeMs) {
      return db.prepare(`DELETE FROM outbox WHERE created_ms < ? AND status IN ('sent', 'failed', 'suppressed')`).run(beforeMs).changes;
    },
  };
}

export function sqlitePush(db: Db): PushRepo {
  const byEndpoint = db.prepare<[string], PushSubscriptionRecord>('SELECT * FROM push_subscriptions WHERE endpoint = ?');
  const countOf = db.prepare<[string | null], { n: number }>('SELECT count(*) AS n FROM push_subscriptions WHERE user_id IS ?');
  const upsert = db.transaction((r: PushSubscriptionRecord, maxPerUser: number): PushUpsert => {
    const existing = byEndpoint.get(r.endpoint);
    if (existing && existing.user_id !== r.user_id) return { status: 'other_user' };
    if (!existing && countOf.get(r.user_id)!.n >= maxPerUser) return { status: 'limit' };
    db.prepare(`INSERT INTO push_subscriptions (id, endpoint, p256dh, auth, user_id, label, created_ms)
        VALUES (@id, @endpoint, @p256dh, @auth, @user_id, @label, @created_ms)
      ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth, label = excluded.label`).run(r);
    return { status: 'ok', record: byEndpoint.get(r.endpoint)! };
  });
  return {
    async upsert(r, maxPerUser) {
      return upsert.immediate(r, maxPerUser);
    },
    async removeByUser(userId) {
      return db.prepare('DELETE FROM push_subscriptions WHERE user_id = ?').run(userId).changes;
    },
    async list() {
      return db.prepare<[], PushSubscriptionRecord>('SELECT * FROM push_subscriptions ORDER BY created_ms').all();
    },
    async byId(id) {
      return db.prepare<[string], PushSubscriptionRecord>('SELECT * FROM push_subscriptions WHERE id = ?').get(id) ?? null;
    },
    async remove(id) {
      return db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes === 1;
    },
    async ensureVapidKeys(candidate) {
      db.prepare(`INSERT INTO push_vapid (id, public_key, private_key) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING`).run(
        candidate.publicKey,
        candidate.privateKey,
      );
      const row = db.prepare<[], { public_key: string; private_key: string }>('SELECT * FROM push_vapid WHERE id = 1').get()!;
      return { publicKey: row.public_key, privateKey: row.private_key };
    },
  };
}

interface ReportRow extends Omit<DailyReportRecord, 'summary' | 'host_ids'> {
  summary: string;
  host_ids: string | null;
}

/** Reports of a host group (issue 30): the group and its hosts when the report was generated. */
export const REPORT_GROUPS_SQLITE_MIGRATION = {
  id: 82,
  name: 'daily reports of a host group',
  sql: `
    ALTER TABLE reports ADD COLUMN group_id TEXT;
    ALTER TABLE reports ADD COLUMN group_name TEXT;
    ALTER TABLE reports ADD COLUMN host_ids TEXT;
    CREATE INDEX reports_by_group ON reports (group_id, created_ms) WHERE group_id IS NOT NULL;
  `,
};

export function sqliteReports(db: Db): ReportsRepo {
  const claim = db.transaction((day: string, owner: string, nowMs: number, leaseUntilMs: number) => {
    const row = db.prepare<[string], { status: string; lease_until_ms: number }>('SELECT * FROM report_days WHERE day = ?').get(day);
    if (!row) {
      db.prepare(`INSERT INTO report_days (day, owner, status, lease_until_ms) VALUES (?, ?, 'running', ?)`).run(day, owner, leaseUntilMs);
      return true;
    }
    if (row.status !== 'running' || row.lease_until_ms >= nowMs) return false;
    db.prepare('UPDATE report_days SET owner = ?, lease_until_ms = ? WHERE day = ?').run(owner, leaseUntilMs, day);
    return true;
  });
  const fromRow = <R extends Omit<ReportRow, 'html'>>(row: R) => ({ ...row, summary: JSON.parse(row.summary), host_ids: row.host_ids === null ? null : (JSON.parse(row.host_ids) as string[]) });
  return {
    async claimDay(day, owner, nowMs, leaseUntilMs) {
      return claim.immediate(day, owner, nowMs, leaseUntilMs);
    },
    async finishDay(day, owner, reportId) {
      db.prepare(`UPDATE report_days SET status = 'done', report_id = ? WHERE day = ? AND owner = ?`).run(reportId, day, owner);
    },
    async insert(r) {
      db.prepare(`INSERT INTO reports (id, day, trigger, requested_by, created_ms, period_from_ms, period_to_ms, summary, html, group_id, group_name, host_ids)
        VALUES (@id, @day, @trigger, @requested_by, @created_ms, @period_from_ms, @period_to_ms, @summary, @html, @group_id, @group_name, @host_ids)`).run({
        ...r,
        summary: JSON.stringify(r.summary),
        host_ids: r.host_ids === null ? null : JSON.stringify(r.host_ids),
      });
    },
    async list(limit, beforeMs, groupId) {
      const rows = db
        .prepare<unknown[], Omit<ReportRow, 'html'>>(`SELECT id, day, trigger, requested_by, created_ms, period_from_ms,
            period_to_ms, summary, group_id, group_name, host_ids FROM reports WHERE created_ms < ? ${groupId === undefined ? '' : 'AND group_id = ?'}
            ORDER BY created_ms DESC LIMIT ?`)
        .all(beforeMs ?? Number.MAX_SAFE_INTEGER, ...(groupId === undefined ? [] : [groupId]), limit);
      return rows.map((row): DailyReportListItem => fromRow(row));
    },
    async byId(id) {
      const row = db.prepare<[string], ReportRow>('SELECT * FROM reports WHERE id = ?').get(id);
      return row ? fromRow(row) : null;
    },
    async agentReports(fromMs, toMs) {
      return db
        .prepare<[number, number], EventRow>(`SELECT * FROM events WHERE type IN ('report.daily.ssh', 'report.daily.rdp')
            AND received_ms >= ? AND received_ms < ? ORDER BY received_ms`)
        .all(fromMs, toMs)
        .map(eventFromRow);
    },
  };
}
