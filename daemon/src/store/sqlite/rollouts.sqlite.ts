import type Database from 'better-sqlite3';
import type { AgentPinRecord, RolloutRecord, RolloutsRepo } from '../rollouts.types.js';

export const ROLLOUTS_SQLITE_MIGRATION = {
  id: 79,
  name: 'staged agent rollouts and version pins',
  sql: `
    CREATE TABLE rollouts (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL,
      created_ms INTEGER NOT NULL,
      rev INTEGER NOT NULL,
      doc TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX rollouts_by_time ON rollouts (created_ms);
    CREATE INDEX rollouts_by_state ON rollouts (state);
    CREATE TABLE agent_pins (
      id TEXT PRIMARY KEY,
      product TEXT NOT NULL,
      max_version TEXT NOT NULL,
      group_id TEXT,
      host_id TEXT,
      note TEXT NOT NULL,
      created_by TEXT NOT NULL,
      created_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX agent_pins_target ON agent_pins (product, coalesce(group_id, ''), coalesce(host_id, ''));
  `,
};

const UNFINISHED = "('running', 'paused')";

export function sqliteRollouts(db: Database.Database): RolloutsRepo {
  const parse = (r: { doc: string }) => JSON.parse(r.doc) as RolloutRecord;
  const insert = db.prepare('INSERT INTO rollouts (id, state, created_ms, rev, doc) VALUES (?, ?, ?, ?, ?)');
  const byId = db.prepare<[string], { doc: string }>('SELECT doc FROM rollouts WHERE id = ?');
  const unfinished = db.prepare<[], { doc: string }>(`SELECT doc FROM rollouts WHERE state IN ${UNFINISHED} ORDER BY created_ms`);
  const update = db.prepare('UPDATE rollouts SET state = ?, rev = ?, doc = ? WHERE id = ? AND rev = ?');
  const pinsAll = db.prepare<[], AgentPinRecord>('SELECT * FROM agent_pins ORDER BY product, created_ms');
  const pinsOf = db.prepare<[string], AgentPinRecord>('SELECT * FROM agent_pins WHERE product = ? ORDER BY created_ms');
  const pinById = db.prepare<[string], AgentPinRecord>('SELECT * FROM agent_pins WHERE id = ?');
  const sameTarget = db.prepare<[string, string, string], AgentPinRecord>(
    "SELECT * FROM agent_pins WHERE product = ? AND coalesce(group_id, '') = ? AND coalesce(host_id, '') = ?",
  );
  const upsertPin = db.prepare(
    `INSERT INTO agent_pins (id, product, max_version, group_id, host_id, note, created_by, created_ms)
     VALUES (@id, @product, @max_version, @group_id, @host_id, @note, @created_by, @created_ms)
     ON CONFLICT (product, coalesce(group_id, ''), coalesce(host_id, '')) DO UPDATE SET
       max_version = excluded.max_version, note = excluded.note, created_by = excluded.created_by, created_ms = excluded.created_ms`,
  );
  const removePin = db.prepare('DELETE FROM agent_pins WHERE id = ?');
  return {
    async insert(r) {
      insert.run(r.id, r.state, r.created_ms, r.rev, JSON.stringify(r));
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? parse(row) : null;
    },
    async list(q) {
      const rows = q.state
        ? db.prepare<[string, number], { doc: string }>('SELECT doc FROM rollouts WHERE state = ? ORDER BY created_ms DESC, id DESC LIMIT ?').all(q.state, q.limit)
        : db.prepare<[number], { doc: string }>('SELECT doc FROM rollouts ORDER BY created_ms DESC, id DESC LIMIT ?').all(q.limit);
      return rows.map(parse);
    },
    async unfinished() {
      return unfinished.all().map(parse);
    },
    async update(r, rev) {
      return update.run(r.state, r.rev, JSON.stringify(r), r.id, rev).changes === 1;
    },
    async pins(product) {
      return product === undefined ? pinsAll.all() : pinsOf.all(product);
    },
    async putPin(pin) {
      upsertPin.run(pin);
      return sameTarget.get(pin.product, pin.group_id ?? '', pin.host_id ?? '')!;
    },
    async pinById(id) {
      return pinById.get(id) ?? null;
    },
    async removePin(id) {
      return removePin.run(id).changes === 1;
    },
  };
}
