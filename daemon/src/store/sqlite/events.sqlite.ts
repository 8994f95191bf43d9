import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import type { Severity } from '../../../../shared/src/index.js';
import { searchTooBroad } from '../../errors.js';
import type { EventQuery, EventsRepo, InsertOutcome, NewEvent } from '../events.types.js';
import { EVENT_COLUMNS, eventFromRow, geoColumns, type EventRow } from './event-row.sqlite.js';
import { ROLLUP_BUCKET_MS } from '../rollup-fold.js';
import { hostUpserter } from './hosts.sqlite.js';
import { chunkedStatements, containsLike, hiddenSql, placeholders, typePatternSql } from './query.sqlite.js';
import type { WalSync } from './wal-sync.sqlite.js';

type Db = Database.Database;

export function sqliteEvents(db: Db, walSync: WalSync): EventsRepo {
  const upsertHosts = hostUpserter(db);
  const insertEvent = db.prepare(`INSERT INTO events (${EVENT_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`);
  // The free-text index is written here from the parsed event, not by a trigger: a trigger had to
  // re-parse the stored JSON twice per row (json_extract), which cost twice the index write itself.
  const indexText = db.prepare('INSERT INTO events_fts (rowid, title, summary) VALUES (?, ?, ?)');
  const byId = db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?');

  // SQLite's lower() folds ASCII only; titles are often Cyrillic.
  db.function('sac_lower', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v));
  db.function('sac_search_budget', { deterministic: false }, (deadline: unknown) => {
    if (performance.now() > Number(deadline)) throw searchTooBroad();
    return 1;
  });
  // The fingerprint covers the host, so (host_id, fp) is as unique as fp, and deleting a host's is a key range.
  // One statement per chunk of a batch, not one per event: the per-row calls were most of the cost.
  const claimRows = chunkedStatements(db, (rows) =>
    `INSERT OR IGNORE INTO event_fingerprints (host_id, fp, event_id) VALUES ${rows} RETURNING fp`, 3);
  const claimAll = db.transaction((items: { fp: string; host_id: string; event_id: string }[]) => {
    const inserted = new Set<string>();
    for (const [stmt, chunk] of claimRows(items)) {
      for (const row of stmt.all(...chunk.flatMap((i) => [i.host_id, i.fp, i.event_id])) as { fp: string }[]) inserted.add(row.fp);
    }
    // A fingerprint twice in one batch: the first claims it, the second is a replay.
    return items.map((i) => inserted.delete(i.fp));
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
  // details() statements by SQL text (one per shape of query; ingest asks the same few).
  const detailStmts = new Map<string, Database.Statement<unknown[], unknown[]>>();
  const setSeverities = db.transaction((updates: { event_id: string; severity: Severity }[]) => {
    for (const u of updates) setSeverity.run(u.severity, u.event_id);
  });

  // Runs inside insertBatch's transaction.
  const writeBatch = (items: NewEvent[]): InsertOutcome[] => {
    const hostIds = upsertHosts(items.map((i) => i.host));
    return items.map((item): InsertOutcome => {
      const hostId = hostIds.get(item.host.key)!;
      const { changes, lastInsertRowid } = insertEvent.run(
        item.event.event_id,
        hostId,
        item.event.type,
        item.event.severity,
        item.occurred_ms,
        item.received_ms,
        item.actor_user,
        item.agent_version,
        ...geoColumns(item.source_geo),
        JSON.stringify(item.event),
      );
      if (changes !== 1) return { status: 'duplicate' };
      indexText.run(lastInsertRowid, item.event.title, item.event.summary ?? '');
      return { status: 'inserted', host_id: hostId };
    });
  };

  return {
    async insertBatch(items, afterInsert) {
      if (items.length === 0) return [];
      // A transaction of someone else's that spans an await would take this batch in; let it finish.
      while (db.inTransaction) await new Promise((resolve) => setImmediate(resolve));
      // One transaction for the events and what the listeners derive from them (problems, rollups,
      // outbox rows): written together (each page once), synced once, and never one without the other.
      db.exec('BEGIN IMMEDIATE');
      let outcomes: InsertOutcome[];
      try {
        outcomes = writeBatch(items);
        if (afterInsert) await afterInsert(outcomes);
        db.exec('COMMIT');
      } finally {
        if (db.inTransaction) db.exec('ROLLBACK');
      }
      await walSync.durable();
      return outcomes;
    },
    async byId(eventId) {
      const row = byId.get(eventId.toLowerCase());
      return row ? eventFromRow(row) : null;
    },
    async count() {
      return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    },
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
      const sql = `SELECT ${EVENT_COLUMNS}
        FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY occurred_ms ${dir}, event_id ${dir} LIMIT ?`;
      return db.prepare<unknown[], EventRow>(sql).all(...params).map(eventFromRow);
    },
    async countMatching(q: EventQuery) {
      const { where, params } = searchWhere(q, false);
      const sql = `SELECT count(*) AS n FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
      return (db.prepare<unknown[], { n: number }>(sql).get(...params) as { n: number }).n;
    },
    async sourceCounts(q) {
      if (q.types.length === 0) return { countries: [], asns: [] };
      // Types as literals: the list of the failed-login types is then the partial index's own (migration 61).
      const hosts = q.host_ids ? ` AND host_id IN (${placeholders(q.host_ids.length)})` : '';
      const range = `type IN (${q.types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')}) AND occurred_ms >= ? AND occurred_ms < ?${hosts}`;
      const params = [q.from_ms, q.to_ms, ...(q.host_ids ?? [])];
      const countries = db
        .prepare<unknown[], { country: string; count: number }>(`SELECT geo_country AS country, count(*) AS count FROM events
          WHERE ${range} AND geo_country IS NOT NULL GROUP BY geo_country ORDER BY count DESC, country LIMIT ?`)
        .all(...params, q.limits.countries);
      // The organisation of one of the group's rows: an AS keeps its name within a database.
      const asns = db
        .prepare<unknown[], { asn: number; as_org: string | null; count: number }>(`SELECT geo_asn AS asn, max(geo_as_org) AS as_org, count(*) AS count
          FROM events WHERE ${range} AND geo_asn IS NOT NULL GROUP BY geo_asn ORDER BY count DESC, asn LIMIT ?`)
        .all(...params, q.limits.asns);
      return { countries, asns };
    },
    async severityHours(q) {
      if (q.host_ids.length === 0) return [];
      const params: unknown[] = [...q.host_ids, q.from_ms, q.to_ms];
      const hidden = hiddenSql('type', q.hidden, params);
      return db
        .prepare<unknown[], { bucket_ms: number; severity: Severity; n: number }>(`SELECT (occurred_ms / ${ROLLUP_BUCKET_MS}) * ${ROLLUP_BUCKET_MS} AS bucket_ms, severity, count(*) AS n FROM events
          WHERE host_id IN (${placeholders(q.host_ids.length)}) AND occurred_ms >= ? AND occurred_ms < ? ${hidden ? `AND ${hidden}` : ''} GROUP BY 1, 2`)
        .all(...params);
    },
    async details(q) {
      // Types as literals, one as `=`: a partial index on exactly them (migration 15) is then usable.
      const literals = q.types.map((t) => `'${t.replace(/'/g, "''")}'`);
      const types = literals.length === 1 ? `type = ${literals[0]}` : `type IN (${literals.join(', ')})`;
      const sql = `SELECT event_id, host_id, type, occurred_ms, ${q.keys.map(() => 'json_extract(doc, ?)').join(', ')}
        FROM events WHERE host_id IN (${placeholders(q.host_ids.length)}) AND ${types} AND occurred_ms >= ? AND occurred_ms < ?
        ORDER BY occurred_ms DESC, event_id DESC LIMIT ?`;
      let stmt = detailStmts.get(sql);
      if (!stmt) detailStmts.set(sql, (stmt = db.prepare<unknown[], unknown[]>(sql).raw()));
      const rows = stmt.all(...q.keys.map((k) => `$.details.${JSON.stringify(k)}`), ...q.host_ids, q.from_ms, q.to_ms, q.limit);
      return rows.map(([event_id, host_id, type, occurred_ms, ...values]) => {
        const details: Record<string, unknown> = {};
        q.keys.forEach((k, i) => {
          if (values[i] !== null) details[k] = values[i];
        });
        return { event_id: event_id as string, host_id: host_id as string, type: type as string, occurred_ms: occurred_ms as number, details };
      });
    },
    async prune(beforeMs, limit) {
      return pruneOldest.immediate(beforeMs, limit);
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
      const like = containsLike(q.q);
      where.push(`(sac_lower(json_extract(doc, '$.title')) LIKE ? ESCAPE '\\' OR sac_lower(coalesce(json_extract(doc, '$.summary'), '')) LIKE ? ESCAPE '\\')`);
      params.push(like, like);
    }
  }
  if (q.actor !== undefined) {
    // SQLite folds ASCII letters itself (LIKE, NOCASE), several times faster than a JavaScript function per row.
    const ascii = /^[\x20-\x7e]*$/.test(q.actor);
    if (q.actor_exact) {
      where.push(ascii ? 'actor_user = ? COLLATE NOCASE' : 'sac_lower(actor_user) = ?');
      params.push(ascii ? q.actor : q.actor.toLowerCase());
    } else {
      where.push(ascii ? "actor_user LIKE ? ESCAPE '\\'" : "sac_lower(actor_user) LIKE ? ESCAPE '\\'");
      params.push(containsLike(q.actor));
    }
  }
  if (q.country !== undefined) {
    where.push('geo_country = ?');
    params.push(q.country);
  }
  if (q.asn !== undefined) {
    where.push('geo_asn = ?');
    params.push(q.asn);
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
