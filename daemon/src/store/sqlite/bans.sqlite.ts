import type Database from 'better-sqlite3';
import type { BanChange, BanRecord, BansRepo } from '../bans.types.js';

export const BANS_SQLITE_MIGRATION = {
  id: 73,
  name: 'fleet SSH bans (one open ban per address)',
  sql: `
    CREATE TABLE ssh_bans (
      id TEXT PRIMARY KEY,
      address TEXT NOT NULL,
      slot TEXT NOT NULL UNIQUE,
      status TEXT NOT NULL,
      created_ms INTEGER NOT NULL,
      applied_ms INTEGER,
      expires_ms INTEGER,
      doc TEXT NOT NULL
    );
    CREATE INDEX ssh_bans_by_created ON ssh_bans (created_ms);
    CREATE INDEX ssh_bans_by_address ON ssh_bans (address, applied_ms);
    CREATE INDEX ssh_bans_by_expiry ON ssh_bans (status, expires_ms);
  `,
};

interface Row {
  doc: string;
}

const fromRow = (r: Row): BanRecord => JSON.parse(r.doc) as BanRecord;

export function sqliteBans(db: Database.Database): BansRepo {
  const insert = db.prepare(
    `INSERT INTO ssh_bans (id, address, slot, status, created_ms, applied_ms, expires_ms, doc)
     VALUES (@id, @address, @slot, @status, @created_ms, @applied_ms, @expires_ms, @doc) ON CONFLICT (slot) DO NOTHING`,
  );
  const bySlot = db.prepare<[string], Row>('SELECT doc FROM ssh_bans WHERE slot = ?');
  const byId = db.prepare<[string], Row>('SELECT doc FROM ssh_bans WHERE id = ?');
  const update = db.prepare('UPDATE ssh_bans SET slot = @slot, status = @status, applied_ms = @applied_ms, expires_ms = @expires_ms, doc = @doc WHERE id = @id');
  const row = (r: BanRecord) => ({ id: r.id, address: r.address, slot: r.slot, status: r.status, created_ms: r.created_ms, applied_ms: r.applied_ms, expires_ms: r.expires_ms, doc: JSON.stringify(r) });
  const insertOpen = db.transaction((record: BanRecord) => {
    if (insert.run(row(record)).changes > 0) return { inserted: true as const };
    return { inserted: false as const, existing: fromRow(bySlot.get(record.slot)!) };
  });
  const transition = db.transaction((id: string, from: BanRecord['status'], change: BanChange) => {
    const current = byId.get(id);
    if (!current) return null;
    const record = fromRow(current);
    if (record.status !== from) return null;
    const next = { ...record, ...change };
    update.run(row(next));
    return next;
  });
  return {
    async insertOpen(record) {
      return insertOpen(record);
    },
    async byId(id) {
      const r = byId.get(id);
      return r ? fromRow(r) : null;
    },
    async list({ status, limit }) {
      const where = status === 'open' ? `WHERE status IN ('proposed', 'active')` : status === 'closed' ? `WHERE status NOT IN ('proposed', 'active')` : '';
      return db.prepare<[number], Row>(`SELECT doc FROM ssh_bans ${where} ORDER BY created_ms DESC, id DESC LIMIT ?`).all(limit).map(fromRow);
    },
    async transition(id, from, change) {
      return transition(id, from, change);
    },
    async appliedSince(address, sinceMs) {
      return db.prepare<[string, number], { n: number }>('SELECT count(*) AS n FROM ssh_bans WHERE address = ? AND applied_ms >= ?').get(address, sinceMs)!.n;
    },
    async expiredBy(nowMs) {
      return db.prepare<[number], Row>(`SELECT doc FROM ssh_bans WHERE status = 'active' AND expires_ms <= ? ORDER BY expires_ms`).all(nowMs).map(fromRow);
    },
  };
}
