import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { restrictFiles } from '../../secret-files.js';
import { appendUnique, foldObservations, hostNeedsWrite } from '../host-merge.js';
import type {
  ApiKeyRecord,
  ApiKeysRepo,
  EventsRepo,
  Host,
  HostsRepo,
  InsertOutcome,
  NewEvent,
  Store,
} from '../store.types.js';
import { eventFromRow, type EventRow } from './event-row.sqlite.js';
import { openWalSync, type WalSync } from './wal-sync.sqlite.js';
import { SQLITE_MIGRATIONS } from './sqlite.migrations.js';
import { sqliteOutbox, sqlitePush, sqliteReports } from './notify.sqlite.js';
import { sqliteAudit } from './audit.sqlite.js';
import { sqliteLoginThrottle, sqliteStreamTickets, sqliteUsers } from './auth.sqlite.js';
import { sqliteSessions } from './sessions.sqlite.js';
import { sqliteSettings } from './settings.sqlite.js';
import { sqliteAgentVersions } from './agent-versions.sqlite.js';
import { sqliteAgentUpdates } from './agent-updates.sqlite.js';
import { sqliteMaintenance } from './maintenance.sqlite.js';
import { sqliteEscalation } from './escalation.sqlite.js';
import { sqliteTelegram } from './telegram.sqlite.js';
import { sqliteTotp } from './totp.sqlite.js';
import { sqliteCommands } from './commands.sqlite.js';
import { sqliteDevices } from './devices.sqlite.js';
import { sqliteCorrelation, sqliteHostState, sqliteLeases, sqliteProblems } from './correlation.sqlite.js';

type Db = Database.Database;

interface HostRow {
  id: string;
  key: string;
  hostname: string;
  os_family: Host['os_family'];
  display_name: string | null;
  fqdn: string | null;
  ipv4: string | null;
  ips: string;
  os_version: string | null;
  timezone: string | null;
  agent_product: string;
  agent_version: string;
  agent_instance_id: string | null;
  agent_instance_ids: string;
  ssh_admin_ok: number | null;
  ssh_admin_checked_at: number | null;
  first_seen_ms: number;
  last_seen_ms: number;
}


function hostFromRow(row: HostRow): Host {
  return {
    ...row,
    ips: JSON.parse(row.ips) as string[],
    agent_instance_ids: JSON.parse(row.agent_instance_ids) as string[],
    ssh_admin_ok: row.ssh_admin_ok === null ? null : row.ssh_admin_ok === 1,
  };
}


/**
 * Opens (creating if needed) the embedded store: one SQLite file in WAL mode. One connection per
 * file runs the checkpoints; another connection to the same file (the ingest thread's) opens with
 * `checkpoints: false`.
 */
export function openSqliteStore(file: string, opts: { checkpoints: boolean } = { checkpoints: true }): Store {
  if (file !== ':memory:') {
    mkdirSync(path.dirname(file), { recursive: true });
    // Created owner-only before SQLite opens it: SQLite gives its -wal and -shm files the same mode.
    closeSync(openSync(file, 'a', 0o600));
    restrictFiles([file, `${file}-wal`, `${file}-shm`]);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL: a commit survives a kill of the process at once (its WAL frames are in the OS) and
  // reaches the disk with the next fdatasync of the WAL — every ingest batch syncs it before its
  // 201s — or the next checkpoint, at most a fraction of a second later (wal-sync.sqlite.ts).
  // FULL made every listener's write at ingest (correlation, rollups) block the event loop on an
  // fsync of its own: ingest fell from ~7,000 to ~560 events/s.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)`);

  // Statements are prepared against the schema, so migrations run before the repositories exist.
  applyMigrations(db);
  const walSync = openWalSync(db, file, opts);
  return {
    kind: 'sqlite',
    events: sqliteEvents(db, walSync),
    hosts: sqliteHosts(db),
    apiKeys: sqliteApiKeys(db),
    outbox: sqliteOutbox(db),
    push: sqlitePush(db),
    reports: sqliteReports(db),
    users: sqliteUsers(db),
    loginThrottle: sqliteLoginThrottle(db),
    streamTickets: sqliteStreamTickets(db),
    sessions: sqliteSessions(db),
    settings: sqliteSettings(db),
    agentVersions: sqliteAgentVersions(db),
    agentUpdates: sqliteAgentUpdates(db),
    audit: sqliteAudit(db),
    problems: sqliteProblems(db),
    hostState: sqliteHostState(db),
    correlation: sqliteCorrelation(db),
    leases: sqliteLeases(db),
    maintenance: sqliteMaintenance(db),
    escalation: sqliteEscalation(db),
    telegram: sqliteTelegram(db),
    totp: sqliteTotp(db),
    commands: sqliteCommands(db),
    devices: sqliteDevices(db),
    feed: null,
    async migrate() {
      return applyMigrations(db);
    },
    async appliedMigrations() {
      return (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    },
    async ping() {
      db.prepare('SELECT 1').get();
    },
    async close() {
      await walSync.close();
      if (db.open) db.close();
    },
  };
}

function applyMigrations(db: Db): number[] {
  const applied: number[] = [];
  const run = db.transaction((m: (typeof SQLITE_MIGRATIONS)[number]) => {
    // Re-checked inside the write transaction so two processes cannot both apply it.
    if (db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(m.id)) return false;
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations (id, name, applied_ms) VALUES (?, ?, ?)').run(m.id, m.name, Date.now());
    return true;
  });
  const ordered = [...SQLITE_MIGRATIONS].sort((a, b) => a.id - b.id);
  for (const m of ordered) if (run.immediate(m)) applied.push(m.id);
  return applied;
}

function sqliteEvents(db: Db, walSync: WalSync): EventsRepo {
  const hostByKey = db.prepare<[string], HostRow>('SELECT * FROM hosts WHERE key = ?');
  const insertHost = db.prepare(`INSERT INTO hosts (id, key, hostname, os_family, display_name, fqdn, ipv4, ips,
      os_version, timezone, agent_product, agent_version, agent_instance_id, agent_instance_ids, first_seen_ms, last_seen_ms)
    VALUES (@id, @key, @hostname, @os_family, @display_name, @fqdn, @ipv4, @ips, @os_version, @timezone,
      @agent_product, @agent_version, @agent_instance_id, @agent_instance_ids, @first_seen_ms, @last_seen_ms)`);
  const updateHost = db.prepare(`UPDATE hosts SET hostname = @hostname, display_name = @display_name, fqdn = @fqdn,
      ipv4 = @ipv4, ips = @ips, os_version = @os_version, timezone = @timezone, agent_product = @agent_product,
      agent_version = @agent_version, agent_instance_id = @agent_instance_id, agent_instance_ids = @agent_instance_ids,
      first_seen_ms = @first_seen_ms,
      last_seen_ms = @last_seen_ms WHERE id = @id`);
  const insertEvent = db.prepare(`INSERT INTO events (event_id, host_id, type, severity, occurred_ms, received_ms,
      actor_user, agent_version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING`);
  const byId = db.prepare<[string], EventRow>('SELECT * FROM events WHERE event_id = ?');

  // Runs inside insertBatch's transaction.
  const writeBatch = (items: NewEvent[]): InsertOutcome[] => {
    const hostIds = new Map<string, string>();
    for (const change of foldObservations(items.map((i) => i.host)).values()) {
      const existing = hostByKey.get(change.key);
      if (!existing) {
        const id = randomUUID();
        insertHost.run({
          id,
          key: change.key,
          hostname: change.hostname,
          os_family: change.os_family,
          display_name: change.latest.display_name ?? null,
          fqdn: change.latest.fqdn ?? null,
          ipv4: change.latest.ipv4 ?? null,
          ips: JSON.stringify(change.ips),
          os_version: change.latest.os_version ?? null,
          timezone: change.latest.timezone ?? null,
          agent_product: change.latest.agent_product,
          agent_version: change.latest.agent_version,
          agent_instance_id: change.latest.agent_instance_id ?? null,
          agent_instance_ids: JSON.stringify(change.agent_instance_ids),
          first_seen_ms: change.first_seen_ms,
          last_seen_ms: change.last_seen_ms,
        });
        hostIds.set(change.key, id);
        continue;
      }
      const newer = change.last_seen_ms >= existing.last_seen_ms;
      const pick = <K extends keyof HostChangeLatest>(k: K) => (newer ? (change.latest[k] ?? existing[k]) : existing[k]);
      const next = {
        id: existing.id,
        hostname: newer ? change.hostname : existing.hostname,
        display_name: pick('display_name'),
        fqdn: pick('fqdn'),
        ipv4: pick('ipv4'),
        ips: JSON.stringify(appendUnique(JSON.parse(existing.ips) as string[], change.ips)),
        os_version: pick('os_version'),
        timezone: pick('timezone'),
        agent_product: pick('agent_product'),
        agent_version: pick('agent_version'),
        agent_instance_id: pick('agent_instance_id'),
        agent_instance_ids: JSON.stringify(
          appendUnique(JSON.parse(existing.agent_instance_ids) as string[], change.agent_instance_ids),
        ),
        first_seen_ms: Math.min(existing.first_seen_ms, change.first_seen_ms),
        last_seen_ms: Math.max(existing.last_seen_ms, change.last_seen_ms),
      };
      if (hostNeedsWrite(existing, next)) updateHost.run(next);
      hostIds.set(change.key, existing.id);
    }
    return items.map((item): InsertOutcome => {
      const hostId = hostIds.get(item.host.key)!;
      const { changes } = insertEvent.run(
        item.event.event_id,
        hostId,
        item.event.type,
        item.event.severity,
        item.occurred_ms,
        item.received_ms,
        item.actor_user,
        item.agent_version,
        JSON.stringify(item.event),
      );
      return changes === 1 ? { status: 'inserted', host_id: hostId } : { status: 'duplicate' };
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
  };
}

type HostChangeLatest = Pick<
  Host,
  'display_name' | 'fqdn' | 'ipv4' | 'os_version' | 'timezone' | 'agent_product' | 'agent_version' | 'agent_instance_id'
>;

function sqliteHosts(db: Db): HostsRepo {
  return {
    async byId(id) {
      const row = db.prepare<[string], HostRow>('SELECT * FROM hosts WHERE id = ?').get(id);
      return row ? hostFromRow(row) : null;
    },
    async list() {
      return db.prepare<[], HostRow>('SELECT * FROM hosts ORDER BY key').all().map(hostFromRow);
    },
    async hostByAgentInstance(agentInstanceId) {
      const row = db
        .prepare<[string], HostRow>('SELECT * FROM hosts WHERE agent_instance_id = ? ORDER BY last_seen_ms DESC, id LIMIT 1')
        .get(agentInstanceId);
      return row ? hostFromRow(row) : null;
    },
    async setSshAdminOk(hostId, ok, atMs) {
      return (
        db.prepare('UPDATE hosts SET ssh_admin_ok = ?, ssh_admin_checked_at = ? WHERE id = ?').run(ok ? 1 : 0, atMs, hostId)
          .changes === 1
      );
    },
  };
}

function sqliteApiKeys(db: Db): ApiKeysRepo {
  return {
    async insert(r) {
      db.prepare(`INSERT INTO api_keys (id, prefix, hash, label, bound_hostname, bound_instance_id, on_mismatch, created_ms, last_used_ms, revoked_ms)
        VALUES (@id, @prefix, @hash, @label, @bound_hostname, @bound_instance_id, @on_mismatch, @created_ms, @last_used_ms, @revoked_ms)`).run(r);
    },
    async byHash(hash) {
      return db.prepare<[string], ApiKeyRecord>('SELECT * FROM api_keys WHERE hash = ?').get(hash) ?? null;
    },
    async list() {
      return db.prepare<[], ApiKeyRecord>('SELECT * FROM api_keys ORDER BY created_ms').all();
    },
    async touch(id, atMs) {
      db.prepare('UPDATE api_keys SET last_used_ms = max(coalesce(last_used_ms, 0), ?) WHERE id = ?').run(atMs, id);
    },
    async revoke(id, atMs) {
      return db.prepare('UPDATE api_keys SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL').run(atMs, id).changes === 1;
    },
  };
}
