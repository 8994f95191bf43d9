import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { restrictFiles } from '../../secret-files.js';
import type { Store } from '../store.types.js';
import { openWalSync, WAL_LIMIT_BYTES } from './wal-sync.sqlite.js';
import { SQLITE_MIGRATIONS } from './sqlite.migrations.js';
import { sqliteOutbox, sqlitePush, sqliteReports } from './notify.sqlite.js';
import { sqliteAudit } from './audit.sqlite.js';
import { sqliteLoginThrottle, sqliteStreamTickets, sqliteUsers } from './auth.sqlite.js';
import { sqliteSessions } from './sessions.sqlite.js';
import { sqliteSettings } from './settings.sqlite.js';
import { sqliteSourceFailures } from './source-failures.sqlite.js';
import { sqliteApprovals } from './approvals.sqlite.js';
import { sqliteRollouts } from './rollouts.sqlite.js';
import { sqliteSuggestValues } from './suggest-values.sqlite.js';
import { sqliteLoginBaselines, sqliteUserLogins } from './login-intel.sqlite.js';
import { sqliteAgentVersions } from './agent-versions.sqlite.js';
import { sqliteAgentUpdates } from './agent-updates.sqlite.js';
import { sqliteMaintenance } from './maintenance.sqlite.js';
import { sqliteGroups } from './groups.sqlite.js';
import { sqliteBans } from './bans.sqlite.js';
import { sqliteEscalation } from './escalation.sqlite.js';
import { sqliteTelegram } from './telegram.sqlite.js';
import { sqliteTotp } from './totp.sqlite.js';
import { sqliteCommands } from './commands.sqlite.js';
import { sqliteDevices } from './devices.sqlite.js';
import { sqliteEvents } from './events.sqlite.js';
import { sqliteHosts } from './hosts.sqlite.js';
import { sqliteHostState } from './host-state.sqlite.js';
import { sqliteProblems } from './problems.sqlite.js';
import { sqliteRollups } from './rollups.sqlite.js';
import { sqliteLeases } from './leases.sqlite.js';
import { sqliteApiKeys } from './api-keys.sqlite.js';

type Db = Database.Database;

/**
 * Opens (creating if needed) the embedded store: one SQLite file in WAL mode. One connection per
 * file runs the checkpoints; another connection to the same file (the ingest thread's) opens with
 * `checkpoints: false`. `walLimitBytes` (tests make it small) bounds the WAL file (wal-sync.sqlite.ts).
 */
export function openSqliteStore(file: string, opts: { checkpoints: boolean; walLimitBytes?: number } = { checkpoints: true }): Store {
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
  const walSync = openWalSync(db, file, { checkpoints: opts.checkpoints, walLimitBytes: opts.walLimitBytes ?? WAL_LIMIT_BYTES });
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
    sourceFailures: sqliteSourceFailures(db),
    approvals: sqliteApprovals(db),
    rollouts: sqliteRollouts(db),
    suggestValues: sqliteSuggestValues(db),
    loginBaselines: sqliteLoginBaselines(db),
    userLogins: sqliteUserLogins(db),
    agentUpdates: sqliteAgentUpdates(db),
    audit: sqliteAudit(db),
    problems: sqliteProblems(db),
    hostState: sqliteHostState(db),
    rollups: sqliteRollups(db),
    leases: sqliteLeases(db),
    maintenance: sqliteMaintenance(db),
    groups: sqliteGroups(db),
    bans: sqliteBans(db),
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
