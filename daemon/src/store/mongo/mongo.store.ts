import { MongoClient } from 'mongodb';
// The store is opened without the daemon's clock: its timers keep the database healthy in real
// (wall) time, which daemons sharing it compare, whatever time a test gives the services.
import { systemClock } from '../../clock.js';
import type { Store } from '../store.types.js';
import type { MongoMigration } from './mongo-migration.js';
import { MONGO_MIGRATIONS } from './mongo.migrations.js';
import { withLocks } from './locks.mongo.js';
import { createCollectionIfMissing } from './query.mongo.js';
import { mongoOutbox, mongoPush, mongoReports } from './notify.mongo.js';
import { mongoAudit } from './audit.mongo.js';
import { mongoLoginThrottle, mongoStreamTickets, mongoUsers } from './auth.mongo.js';
import { mongoSessions } from './sessions.mongo.js';
import { mongoSettings } from './settings.mongo.js';
import { mongoSourceFailures } from './source-failures.mongo.js';
import { mongoApprovals } from './approvals.mongo.js';
import { mongoRollouts } from './rollouts.mongo.js';
import { mongoSuggestValues } from './suggest-values.mongo.js';
import { mongoLoginBaselines, mongoUserLogins } from './login-intel.mongo.js';
import { mongoAgentVersions } from './agent-versions.mongo.js';
import { mongoAgentUpdates } from './agent-updates.mongo.js';
import { mongoMaintenance } from './maintenance.mongo.js';
import { mongoGroups } from './groups.mongo.js';
import { mongoBans } from './bans.mongo.js';
import { mongoEscalation } from './escalation.mongo.js';
import { mongoTelegram } from './telegram.mongo.js';
import { mongoTotp } from './totp.mongo.js';
import { mongoCommands } from './commands.mongo.js';
import { mongoDevices } from './devices.mongo.js';
import { mongoFeed } from './feed.mongo.js';
import { mongoEvents } from './events.mongo.js';
import { mongoHosts, newHostCache } from './hosts.mongo.js';
import { mongoHostState } from './host-state.mongo.js';
import { mongoProblems } from './problems.mongo.js';
import { mongoRollups } from './rollups.mongo.js';
import { mongoLeases } from './leases.mongo.js';
import { mongoApiKeys } from './api-keys.mongo.js';

/** The store lock migrations run under: one daemon migrates, the others wait for it. */
const MIGRATION_LOCK = 'schema_migrations';
/**
 * How long a daemon waits for another one's migrations. The lock's lease is renewed while they
 * run (and runs out within seconds when their daemon dies), so this bounds only a migration that
 * really runs that long, e.g. one rewriting every event of a big store.
 */
const MIGRATION_LOCK_WAIT_MS = 30 * 60_000;

const CONNECT_TIMEOUT_MS = 5000;
/**
 * The longest a server check of the driver's monitor can take (a connect, then a hello, each
 * bounded by connectTimeoutMS), with room for a busy event loop. A check running longer never ends:
 * mongodb 6.22 writes the hello with `socket.write` and, when that returns false, waits for `drain`
 * (or `error`) only — a socket destroyed by the server going away, whose `close` the connection had
 * not yet seen, returns false and emits neither, so the check hangs and the server stays `Unknown`
 * for ever (every operation then fails server selection, even after the server is back).
 */
const MONITOR_STALL_MS = 2 * CONNECT_TIMEOUT_MS + 1000;

/**
 * Closes and connects the client again when its server monitor stalls (see MONITOR_STALL_MS): a new
 * topology starts a new monitor. Until it connects, operations fail at once (503); it is retried
 * until the server answers. Returns the function that stops watching.
 */
function reconnectOnStalledMonitor(client: MongoClient): () => void {
  let checkStarted: number | null = null;
  let reconnecting = false;
  let stopped = false;
  client.on('serverHeartbeatStarted', () => (checkStarted = Date.now()));
  client.on('serverHeartbeatSucceeded', () => (checkStarted = null));
  client.on('serverHeartbeatFailed', () => (checkStarted = null));
  const reconnect = async () => {
    process.emitWarning('MongoDB server monitor stalled: reconnecting the client', 'SacStoreWarning');
    await client.close().catch(() => undefined);
    while (!stopped) {
      try {
        await client.connect();
        return;
      } catch {
        await systemClock.sleep(500);
      }
    }
  };
  const timer = systemClock.setInterval(() => {
    if (reconnecting || checkStarted === null || Date.now() - checkStarted < MONITOR_STALL_MS) return;
    reconnecting = true;
    checkStarted = null;
    void reconnect().finally(() => (reconnecting = false));
  }, 1000);
  return () => {
    stopped = true;
    timer.cancel();
  };
}

/**
 * Opens the MongoDB store (the production store); migrations create the indexes. `migrations`:
 * the numbered migrations to apply (all of them; a test hands in counted copies).
 */
export async function openMongoStore(uri: string, dbName: string, migrations: readonly MongoMigration[] = MONGO_MIGRATIONS): Promise<Store> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    // Room for the parallel writes of a batch (query.mongo.ts WRITES_IN_FLIGHT) beside reads and other work.
    maxPoolSize: 64,
    // Acknowledged by the majority and journaled before ingest answers 201.
    writeConcern: { w: 'majority', j: true },
  });
  await client.connect();
  const stopWatching = reconnectOnStalledMonitor(client);
  const db = client.db(dbName);
  // Shared by ingest (which fills it) and host deletion (which empties it of the deleted host).
  const hostCache = newHostCache();

  return {
    kind: 'mongodb',
    events: mongoEvents(db, hostCache),
    hosts: mongoHosts(db, hostCache),
    apiKeys: mongoApiKeys(db),
    outbox: mongoOutbox(db),
    push: mongoPush(db),
    reports: mongoReports(db),
    users: mongoUsers(db),
    loginThrottle: mongoLoginThrottle(db),
    streamTickets: mongoStreamTickets(db),
    sessions: mongoSessions(db),
    settings: mongoSettings(db),
    agentVersions: mongoAgentVersions(db),
    sourceFailures: mongoSourceFailures(db),
    approvals: mongoApprovals(db),
    rollouts: mongoRollouts(db),
    suggestValues: mongoSuggestValues(db),
    loginBaselines: mongoLoginBaselines(db),
    userLogins: mongoUserLogins(db),
    agentUpdates: mongoAgentUpdates(db),
    audit: mongoAudit(db),
    problems: mongoProblems(db),
    hostState: mongoHostState(db),
    rollups: mongoRollups(db),
    leases: mongoLeases(db),
    maintenance: mongoMaintenance(db),
    groups: mongoGroups(db),
    bans: mongoBans(db),
    escalation: mongoEscalation(db),
    telegram: mongoTelegram(db),
    totp: mongoTotp(db),
    commands: mongoCommands(db),
    devices: mongoDevices(db),
    feed: mongoFeed(db),
    async migrate() {
      const records = db.collection<{ _id: number; name: string; applied_ms: number }>('schema_migrations');
      const pending = async () => {
        const done = new Set((await records.find({}, { projection: { _id: 1 } }).toArray()).map((r) => r._id));
        return [...migrations].sort((a, b) => a.id - b.id).filter((m) => !done.has(m.id));
      };
      // A start on an up-to-date store takes no lock.
      if ((await pending()).length === 0) return [];
      const applied: number[] = [];
      await createCollectionIfMissing(db, 'locks');
      // Under one store lock, so two daemons starting together do not both run a migration: the
      // second waits, then finds every migration recorded. Should the holder die midway, its lease
      // runs out and the next daemon redoes the unrecorded step, which is why each step stays
      // idempotent (createIndex of an existing index is a no-op).
      await withLocks(
        db,
        [MIGRATION_LOCK],
        async () => {
          for (const m of await pending()) {
            await m.up(db);
            const res = await records.updateOne({ _id: m.id }, { $setOnInsert: { name: m.name, applied_ms: Date.now() } }, { upsert: true });
            if (res.upsertedCount === 1) applied.push(m.id);
          }
        },
        { waitMs: MIGRATION_LOCK_WAIT_MS, busyWaitMs: MIGRATION_LOCK_WAIT_MS },
      );
      return applied;
    },
    async appliedMigrations() {
      const rows = await db.collection<{ _id: number }>('schema_migrations').find().sort({ _id: 1 }).toArray();
      return rows.map((r) => r._id);
    },
    async ping() {
      await db.command({ ping: 1 });
    },
    async close() {
      stopWatching();
      await client.close();
    },
  };
}
