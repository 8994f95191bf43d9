import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, MongoClient, type Db, type UpdateFilter, type WriteError } from 'mongodb';
import type { Event } from '../../../../shared/src/index.js';
import { foldObservations, HOST_LIST_LIMIT, hostNeedsWrite, type HostChange } from '../host-merge.js';
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
import type { StoredEvent } from '../events.types.js';
import { MONGO_MIGRATIONS } from './mongo.migrations.js';
import { mongoOutbox, mongoPush, mongoReports } from './notify.mongo.js';
import { mongoAudit } from './audit.mongo.js';
import { mongoLoginThrottle, mongoStreamTickets, mongoUsers } from './auth.mongo.js';
import { mongoSessions } from './sessions.mongo.js';
import { mongoSettings } from './settings.mongo.js';
import { mongoAgentVersions } from './agent-versions.mongo.js';
import { mongoAgentUpdates } from './agent-updates.mongo.js';
import { mongoMaintenance } from './maintenance.mongo.js';
import { mongoEscalation } from './escalation.mongo.js';
import { mongoTelegram } from './telegram.mongo.js';
import { mongoTotp } from './totp.mongo.js';
import { mongoCommands } from './commands.mongo.js';
import { mongoDevices } from './devices.mongo.js';
import { mongoFeed } from './feed.mongo.js';
import { mongoCorrelation, mongoHostState, mongoLeases, mongoProblems } from './correlation.mongo.js';

const DUPLICATE_KEY = 11000;
/**
 * Write errors that reject one document for its content (BadValue: FerretDB refuses keys that
 * start with `$` or contain `.`; DollarPrefixedFieldName, EmptyFieldName, DottedFieldName on older
 * servers); the rest of an unordered insert goes through.
 */
const BAD_DOCUMENT = new Set([2, 52, 56, 57]);

interface EventDoc {
  event_id: string;
  host_id: string;
  type: string;
  severity: StoredEvent['severity'];
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  event: Event;
}

type HostDoc = Host & { _id?: unknown };
type ApiKeyDoc = ApiKeyRecord & { _id?: unknown };

/** Opens the MongoDB store (the production store); migrations create the indexes. */
export async function openMongoStore(uri: string, dbName: string): Promise<Store> {
  const client = new MongoClient(uri, {
    serverSelectionTimeoutMS: 5000,
    connectTimeoutMS: 5000,
    maxPoolSize: 20,
    // Acknowledged by the majority and journaled before ingest answers 201.
    writeConcern: { w: 'majority', j: true },
  });
  await client.connect();
  const db = client.db(dbName);

  return {
    kind: 'mongodb',
    events: mongoEvents(db),
    hosts: mongoHosts(db),
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
    agentUpdates: mongoAgentUpdates(db),
    audit: mongoAudit(db),
    problems: mongoProblems(db),
    hostState: mongoHostState(db),
    correlation: mongoCorrelation(db),
    leases: mongoLeases(db),
    maintenance: mongoMaintenance(db),
    escalation: mongoEscalation(db),
    telegram: mongoTelegram(db),
    totp: mongoTotp(db),
    commands: mongoCommands(db),
    devices: mongoDevices(db),
    feed: mongoFeed(db),
    async migrate() {
      const records = db.collection<{ _id: number; name: string; applied_ms: number }>('schema_migrations');
      const applied: number[] = [];
      for (const m of [...MONGO_MIGRATIONS].sort((a, b) => a.id - b.id)) {
        if (await records.findOne({ _id: m.id })) continue;
        // Every migration step is idempotent (createIndex of an existing index is a no-op), so a
        // second daemon racing through the same step is harmless; the record is written once.
        await m.up(db);
        const res = await records.updateOne(
          { _id: m.id },
          { $setOnInsert: { name: m.name, applied_ms: Date.now() } },
          { upsert: true },
        );
        if (res.upsertedCount === 1) applied.push(m.id);
      }
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
      await client.close();
    },
  };
}

function mongoEvents(db: Db): EventsRepo {
  const events = db.collection<EventDoc>('events');
  const hosts = db.collection<HostDoc>('hosts');

  function newHost(change: HostChange): Host {
    return {
      id: randomUUID(),
      key: change.key,
      hostname: change.hostname,
      os_family: change.os_family,
      display_name: change.latest.display_name ?? null,
      fqdn: change.latest.fqdn ?? null,
      ipv4: change.latest.ipv4 ?? null,
      ips: change.ips,
      os_version: change.latest.os_version ?? null,
      timezone: change.latest.timezone ?? null,
      agent_product: change.latest.agent_product,
      agent_version: change.latest.agent_version,
      agent_instance_id: change.latest.agent_instance_id ?? null,
      agent_instance_ids: change.agent_instance_ids,
      ssh_admin_ok: null,
      ssh_admin_checked_at: null,
      first_seen_ms: change.first_seen_ms,
      last_seen_ms: change.last_seen_ms,
    };
  }

  /** The update widening a stored host by a batch's change, or null when it would change nothing. */
  function hostUpdate(existing: HostDoc, change: HostChange): UpdateFilter<HostDoc> | null {
    const latest: Record<string, string> = { hostname: change.hostname };
    for (const [k, v] of Object.entries(change.latest)) if (v !== undefined) latest[k] = v;
    const newIps = change.ips.filter((ip) => !existing.ips.includes(ip));
    const newAgents = change.agent_instance_ids.filter((id) => !existing.agent_instance_ids.includes(id));
    const newer = change.last_seen_ms >= existing.last_seen_ms;
    const merged = { ...existing, ...(newer ? latest : {}), last_seen_ms: Math.max(existing.last_seen_ms, change.last_seen_ms) };
    const moved = newIps.length > 0 || newAgents.length > 0 || change.first_seen_ms < existing.first_seen_ms;
    if (!moved && !hostNeedsWrite(existing, merged)) return null;
    return {
      ...(newer ? { $set: latest } : {}),
      $min: { first_seen_ms: change.first_seen_ms },
      $max: { last_seen_ms: change.last_seen_ms },
      $push: {
        ips: { $each: newIps, $slice: -HOST_LIST_LIMIT },
        agent_instance_ids: { $each: newAgents, $slice: -HOST_LIST_LIMIT },
      },
    };
  }

  /**
   * Creates the batch's hosts (or recreates them after deletion) or widens their fields, in a few
   * round trips for all of them: one read, one insertMany, one bulkWrite. Only a batch at least as
   * recent as the stored last-seen may overwrite the descriptive fields. Returns the id per host key.
   */
  async function upsertHosts(changes: HostChange[]): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    let pending = changes;
    while (pending.length > 0) {
      // `_id` is kept: FerretDB's SQLite handler uses an index only for a filter on `_id` alone.
      const stored = new Map((await hosts.find({ key: { $in: pending.map((c) => c.key) } }).toArray()).map((h) => [h.key, h]));
      const created = pending.filter((c) => !stored.has(c.key)).map((c) => ({ change: c, host: newHost(c) }));
      const updates = pending.flatMap((change) => {
        const existing = stored.get(change.key);
        if (!existing) return [];
        ids.set(change.key, existing.id);
        const update = hostUpdate(existing, change);
        return update ? [{ updateOne: { filter: { _id: existing._id }, update } }] : [];
      });
      const lost = new Set<number>();
      await Promise.all([
        created.length > 0
          ? hosts.insertMany(created.map((c) => ({ ...c.host })), { ordered: false }).catch((err: unknown) => {
              const writeErrors = err instanceof MongoBulkWriteError ? ([] as WriteError[]).concat(err.writeErrors ?? []) : [];
              if (writeErrors.length === 0) throw err;
              for (const we of writeErrors) {
                if (we.code !== DUPLICATE_KEY) throw err;
                lost.add(we.index);
              }
            })
          : undefined,
        updates.length > 0 ? hosts.bulkWrite(updates, { ordered: false }) : undefined,
      ]);
      created.forEach((c, i) => {
        if (!lost.has(i)) ids.set(c.change.key, c.host.id);
      });
      // Another daemon created these a moment ago (the unique key index let it win): widen theirs.
      pending = created.filter((_, i) => lost.has(i)).map((c) => c.change);
    }
    return ids;
  }

  return {
    async insertBatch(items: NewEvent[], afterInsert) {
      if (items.length === 0) return [];
      const hostIds = await upsertHosts([...foldObservations(items.map((i) => i.host)).values()]);
      const docs: EventDoc[] = items.map((item) => ({
        event_id: item.event.event_id,
        host_id: hostIds.get(item.host.key)!,
        type: item.event.type,
        severity: item.event.severity,
        occurred_ms: item.occurred_ms,
        received_ms: item.received_ms,
        actor_user: item.actor_user,
        agent_version: item.agent_version,
        event: item.event,
      }));
      const duplicates = new Set<number>();
      const rejected = new Map<number, string>();
      try {
        await events.insertMany(docs, { ordered: false });
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError)) throw err;
        const writeErrors = ([] as WriteError[]).concat(err.writeErrors ?? []);
        // A bulk error without write errors is a lost connection or write concern: nothing is
        // known to be stored, so the batch fails (503) rather than answering 201 for events
        // that may not exist.
        if (writeErrors.length === 0) throw err;
        for (const we of writeErrors) {
          if (we.code === DUPLICATE_KEY) duplicates.add(we.index);
          else if (BAD_DOCUMENT.has(we.code)) rejected.set(we.index, we.errmsg ?? `write error ${we.code}`);
          else throw err;
        }
      }
      const outcomes = docs.map((d, i): InsertOutcome => {
        const reason = rejected.get(i);
        if (reason !== undefined) return { status: 'rejected', reason };
        return duplicates.has(i) ? { status: 'duplicate' } : { status: 'inserted', host_id: d.host_id };
      });
      // No multi-document transactions here (FerretDB has none): the listeners' writes follow the insert.
      if (afterInsert) await afterInsert(outcomes);
      return outcomes;
    },
    async byId(eventId) {
      const doc = await events.findOne({ event_id: eventId.toLowerCase() }, { projection: { _id: 0 } });
      return doc ? { ...doc, occurred_at: doc.event.occurred_at } : null;
    },
    async count() {
      return events.countDocuments();
    },
  };
}

function mongoHosts(db: Db): HostsRepo {
  const hosts = db.collection<HostDoc>('hosts');
  return {
    async byId(id) {
      return hosts.findOne({ id }, { projection: { _id: 0 } });
    },
    async list() {
      return hosts.find({}, { projection: { _id: 0 } }).sort({ key: 1 }).toArray();
    },
    async hostByAgentInstance(agentInstanceId) {
      return hosts.findOne({ agent_instance_id: agentInstanceId }, { projection: { _id: 0 }, sort: { last_seen_ms: -1, id: 1 } });
    },
    async setSshAdminOk(hostId, ok, atMs) {
      const res = await hosts.updateOne({ id: hostId }, { $set: { ssh_admin_ok: ok, ssh_admin_checked_at: atMs } });
      return res.matchedCount === 1;
    },
  };
}

/** Keys stored before host binding existed are unbound. */
function withBinding(doc: ApiKeyDoc): ApiKeyRecord {
  return { ...doc, bound_hostname: doc.bound_hostname ?? null, bound_instance_id: doc.bound_instance_id ?? null, on_mismatch: doc.on_mismatch ?? 'refuse' };
}

function mongoApiKeys(db: Db): ApiKeysRepo {
  const keys = db.collection<ApiKeyDoc>('api_keys');
  return {
    async insert(r) {
      await keys.insertOne({ ...r });
    },
    async byHash(hash) {
      const doc = await keys.findOne({ hash }, { projection: { _id: 0 } });
      return doc && withBinding(doc);
    },
    async list() {
      return (await keys.find({}, { projection: { _id: 0 } }).sort({ created_ms: 1 }).toArray()).map(withBinding);
    },
    async touch(id, atMs) {
      await keys.updateOne({ id }, { $max: { last_used_ms: atMs } });
    },
    async revoke(id, atMs) {
      const res = await keys.updateOne({ id, revoked_ms: null }, { $set: { revoked_ms: atMs } });
      return res.modifiedCount === 1;
    },
  };
}
