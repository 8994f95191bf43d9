import type Database from 'better-sqlite3';
import type { MaintenanceRepo, MaintenanceWindowRecord } from '../maintenance.types.js';

interface Row {
  id: string;
  hosts: string;
  group_ids: string;
  type_prefixes: string;
  rules: string;
  starts_ms: number;
  ends_ms: number | null;
  recurrence: string | null;
  reason: string;
  created_by: string | null;
  created_ms: number;
  updated_ms: number;
  ended_early_ms: number | null;
}

function fromRow(r: Row): MaintenanceWindowRecord {
  return {
    ...r,
    hosts: JSON.parse(r.hosts) as string[],
    group_ids: JSON.parse(r.group_ids) as string[],
    type_prefixes: JSON.parse(r.type_prefixes) as string[],
    rules: JSON.parse(r.rules) as string[],
    recurrence: r.recurrence ? (JSON.parse(r.recurrence) as MaintenanceWindowRecord['recurrence']) : null,
  };
}

function toRow(w: MaintenanceWindowRecord): Row {
  return {
    ...w,
    hosts: JSON.stringify(w.hosts),
    group_ids: JSON.stringify(w.group_ids),
    type_prefixes: JSON.stringify(w.type_prefixes),
    rules: JSON.stringify(w.rules),
    recurrence: w.recurrence ? JSON.stringify(w.recurrence) : null,
  };
}

/** Maintenance windows naming host groups (issue 30). */
export const MAINTENANCE_GROUPS_SQLITE_MIGRATION = {
  id: 83,
  name: 'maintenance windows naming host groups',
  sql: `ALTER TABLE maintenance_windows ADD COLUMN group_ids TEXT NOT NULL DEFAULT '[]';`,
};

export function sqliteMaintenance(db: Database.Database): MaintenanceRepo {
  const cols = 'id, hosts, group_ids, type_prefixes, rules, starts_ms, ends_ms, recurrence, reason, created_by, created_ms, updated_ms, ended_early_ms';
  const insert = db.prepare(`INSERT INTO maintenance_windows (${cols}) VALUES (@id, @hosts, @group_ids, @type_prefixes, @rules, @starts_ms, @ends_ms, @recurrence, @reason, @created_by, @created_ms, @updated_ms, @ended_early_ms)`);
  const replace = db.prepare(`UPDATE maintenance_windows SET hosts = @hosts, group_ids = @group_ids, type_prefixes = @type_prefixes, rules = @rules, starts_ms = @starts_ms,
    ends_ms = @ends_ms, recurrence = @recurrence, reason = @reason, updated_ms = @updated_ms, ended_early_ms = @ended_early_ms WHERE id = @id`);
  return {
    async insert(w) {
      insert.run(toRow(w));
    },
    async replace(w) {
      return replace.run(toRow(w)).changes > 0;
    },
    async byId(id) {
      const row = db.prepare<[string], Row>('SELECT * FROM maintenance_windows WHERE id = ?').get(id);
      return row ? fromRow(row) : null;
    },
    async list() {
      return db.prepare<[], Row>('SELECT * FROM maintenance_windows ORDER BY starts_ms DESC, id').all().map(fromRow);
    },
    async current(nowMs) {
      return db.prepare<[number], Row>('SELECT * FROM maintenance_windows WHERE ends_ms IS NULL OR ends_ms > ?').all(nowMs).map(fromRow);
    },
  };
}
