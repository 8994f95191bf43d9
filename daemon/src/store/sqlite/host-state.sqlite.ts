import type Database from 'better-sqlite3';
import type { HostState, HostStateRepo } from '../hosts.types.js';

type Db = Database.Database;

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
  // Ingest sets every heartbeating host online, per batch: prepared once.
  const setStatusStmt = db.prepare(`INSERT INTO host_state (host_id, status) VALUES (?, ?)
    ON CONFLICT (host_id) DO UPDATE SET status = excluded.status WHERE status IS NOT excluded.status`);
  const recordAll = db.transaction((items: { host_id: string; at_ms: number }[]) => {
    for (const item of items) beat.run(item.host_id, item.at_ms);
    return [...new Set(items.map((i) => i.host_id))].filter((hostId) => setStatusStmt.run(hostId, 'online').changes === 1);
  });
  const replace = db.transaction((hostId: string, inventory: Record<string, unknown>, atMs: number) => {
    const row = get.get(hostId);
    if (row?.inventory_ms != null && row.inventory_ms >= atMs) return { replaced: false, previous: null };
    db.prepare(`INSERT INTO host_state (host_id, inventory, inventory_ms) VALUES (@host_id, @inv, @at)
      ON CONFLICT (host_id) DO UPDATE SET previous_inventory = inventory, previous_inventory_ms = inventory_ms,
        inventory = @inv, inventory_ms = @at`).run({ host_id: hostId, inv: JSON.stringify(inventory), at: atMs });
    return { replaced: true, previous: row?.inventory ? (JSON.parse(row.inventory) as Record<string, unknown>) : null };
  });
  return {
    async recordHeartbeats(items) {
      return items.length > 0 ? recordAll.immediate(items) : [];
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
    async countStale() {
      return (db.prepare(`SELECT count(*) AS n FROM host_state WHERE status = 'stale'`).get() as { n: number }).n;
    },
    async replaceInventory(hostId, inventory, atMs) {
      return replace.immediate(hostId, inventory, atMs);
    },
  };
}
