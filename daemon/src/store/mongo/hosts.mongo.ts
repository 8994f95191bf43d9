import { randomUUID } from 'node:crypto';
import type { Db, ObjectId, UpdateFilter } from 'mongodb';
import { foldRollups } from '../rollup-fold.js';
import { appendUnique, HOST_LIST_LIMIT, hostNeedsWrite, type HostChange } from '../host-merge.js';
import type { Host, HostsRepo } from '../hosts.types.js';
import type { EventDoc } from './event-doc.mongo.js';
import type { HostStateDoc } from './host-state.mongo.js';
import { CopyCache } from './copy-cache.mongo.js';
import { findEach, inParallel, onlyDuplicates, writeErrorsOf } from './query.mongo.js';
import { dropHostRollups, rollupWriter } from './rollups.mongo.js';

export type HostDoc = Host & { _id?: ObjectId };

/**
 * Host `last_seen` resolution on MongoDB, coarser than the SQLite store's: each host write is its
 * own FerretDB transaction (a read-modify-write of the document), not a row of the batch's one
 * SQLite transaction — at 1 s, 500 agents cost 500 host writes a second. Nothing reads last-seen
 * more finely than minutes (host status goes by the heartbeat time, kept exactly in host_state).
 */
const LAST_SEEN_RESOLUTION_MS = 10_000;

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
    observed_ip: change.latest.observed_ip ?? null,
    pinned_address: null,
    pinned_winrm_name: null,
    ssh_admin_ok: null,
    ssh_admin_checked_at: null,
    first_seen_ms: change.first_seen_ms,
    last_seen_ms: change.last_seen_ms,
  };
}

/** The stored host after a batch's change: what the update below makes of it. */
function mergedHost(existing: HostDoc, change: HostChange): HostDoc {
  const newer = change.last_seen_ms >= existing.last_seen_ms;
  return {
    ...existing,
    ...(newer ? latestFields(change) : {}),
    ips: appendUnique(existing.ips, change.ips),
    agent_instance_ids: appendUnique(existing.agent_instance_ids, change.agent_instance_ids),
    first_seen_ms: Math.min(existing.first_seen_ms, change.first_seen_ms),
    last_seen_ms: Math.max(existing.last_seen_ms, change.last_seen_ms),
  };
}

function latestFields(change: HostChange): Record<string, string> {
  const latest: Record<string, string> = { hostname: change.hostname };
  for (const [k, v] of Object.entries(change.latest)) if (v !== undefined) latest[k] = v;
  return latest;
}

/** True when a change adds to a host's lists or moves its first sighting back (not only refreshes it). */
function widens(existing: HostDoc, change: HostChange): boolean {
  return (
    change.ips.some((ip) => !existing.ips.includes(ip)) ||
    change.agent_instance_ids.some((id) => !existing.agent_instance_ids.includes(id)) ||
    change.first_seen_ms < existing.first_seen_ms
  );
}

/** The update widening a stored host by a batch's change, or null when it would change nothing. */
function hostUpdate(existing: HostDoc, change: HostChange): UpdateFilter<HostDoc> | null {
  const newIps = change.ips.filter((ip) => !existing.ips.includes(ip));
  const newAgents = change.agent_instance_ids.filter((id) => !existing.agent_instance_ids.includes(id));
  const newer = change.last_seen_ms >= existing.last_seen_ms;
  const refreshed = { ...existing, ...(newer ? latestFields(change) : {}), last_seen_ms: Math.max(existing.last_seen_ms, change.last_seen_ms) };
  if (!widens(existing, change) && !hostNeedsWrite(existing, refreshed, LAST_SEEN_RESOLUTION_MS)) return null;
  return {
    ...(newer ? { $set: latestFields(change) } : {}),
    $min: { first_seen_ms: change.first_seen_ms },
    $max: { last_seen_ms: change.last_seen_ms },
    $push: {
      ips: { $each: newIps, $slice: -HOST_LIST_LIMIT },
      agent_instance_ids: { $each: newAgents, $slice: -HOST_LIST_LIMIT },
    },
  };
}

/**
 * The hosts this daemon ingests for, by key. Ingest reads a host only when it is new to this
 * daemon, its copy is older than ten minutes, or a batch widens it (a new address or agent: the lists
 * are appended to, so they are read first). A stale copy is harmless: a host's id never changes,
 * and an older copy only costs a refresh written early; a host another daemon deleted is noticed at
 * its next write (at most LAST_SEEN_RESOLUTION_MS later), which matches nothing, and is then read
 * again (and recreated).
 */
export type HostCache = CopyCache<HostDoc>;

/** Up to this many hosts to read are looked up one by one. */
const FEW_HOSTS = 16;

/** At most 20,000 hosts (a copy is about 1.5 KB): past that, the least recently written are read again when needed. */
export const newHostCache = (): HostCache => new CopyCache<HostDoc>({ ttlMs: 10 * 60_000, max: 20_000 });

/**
 * Creates the batch's hosts (or recreates them after deletion) or widens their fields: the hosts
 * this daemon has fresh copies of are only written when something changed; the others are read
 * with one query, then created with one insertMany, and the updates go out in parallel. Only a batch
 * at least as recent as the stored last-seen may overwrite the descriptive fields. Returns the id per host key.
 */
export async function upsertHosts(db: Db, changes: HostChange[], cache: HostCache): Promise<Map<string, string>> {
  const hosts = db.collection<HostDoc>('hosts');
  // A few hosts one equality query each (FerretDB hands those to PostgreSQL); more with one `$in`,
  // which FerretDB answers by reading every host.
  const readHosts = (keys: string[]) => (keys.length <= FEW_HOSTS ? findEach(hosts, keys.map((key) => ({ key }))) : hosts.find({ key: { $in: keys } }).toArray());
  const ids = new Map<string, string>();
  const now = Date.now();
  const cached: { change: HostChange; doc: HostDoc }[] = [];
  let pending: HostChange[] = [];
  for (const change of changes) {
    const doc = cache.fresh(change.key, now);
    if (doc && !widens(doc, change)) cached.push({ change, doc });
    else pending.push(change);
  }
  const gone: HostChange[] = [];
  const writeCached = inParallel(cached, async ({ change, doc }) => {
    const update = hostUpdate(doc, change);
    if (update) {
      // Nothing matched: another daemon deleted the host. It is read (and recreated) below.
      if ((await hosts.updateOne({ _id: doc._id }, update)).matchedCount === 0) {
        cache.forget(change.key);
        gone.push(change);
        return;
      }
      cache.replace(change.key, mergedHost(doc, change));
    }
    ids.set(change.key, doc.id);
  });
  const readAndWrite = async () => {
    while (pending.length > 0) {
      // `_id` is kept: the updates address hosts by it (FerretDB's SQLite handler has an index for `_id` alone).
      const stored = new Map((await readHosts(pending.map((c) => c.key))).map((h) => [h.key, h]));
      const created = pending.filter((c) => !stored.has(c.key)).map((c) => ({ change: c, host: newHost(c) as HostDoc }));
      const updates = pending.flatMap((change) => {
        const existing = stored.get(change.key);
        if (!existing) return [];
        ids.set(change.key, existing.id);
        const update = hostUpdate(existing, change);
        if (!update) cache.set(change.key, existing, now);
        return update ? [{ existing, change, update }] : [];
      });
      const lost = new Set<number>();
      await Promise.all([
        created.length > 0
          ? // The driver gives each document it inserts an `_id`: the cached copies get theirs.
            hosts.insertMany(created.map((c) => c.host), { ordered: false }).catch((err: unknown) => {
              if (!onlyDuplicates(err)) throw err;
              for (const we of writeErrorsOf(err)) lost.add(we.index);
            })
          : undefined,
        inParallel(updates, async (u) => {
          await hosts.updateOne({ _id: u.existing._id }, u.update);
          cache.set(u.change.key, mergedHost(u.existing, u.change), now);
        }),
      ]);
      created.forEach((c, i) => {
        if (lost.has(i)) return;
        ids.set(c.change.key, c.host.id);
        cache.set(c.change.key, c.host, now);
      });
      // Another daemon created these a moment ago (the unique key index let it win): widen theirs.
      pending = created.filter((_, i) => lost.has(i)).map((c) => c.change);
    }
  };
  await Promise.all([writeCached, readAndWrite()]);
  pending = gone;
  if (pending.length > 0) await readAndWrite();
  return ids;
}

export function mongoHosts(db: Db, cache: HostCache): HostsRepo {
  const addRollups = rollupWriter(db);
  const hosts = db.collection<HostDoc>('hosts');
  return {
    async byId(id) {
      return hosts.findOne({ id }, { projection: { _id: 0 } });
    },
    async list() {
      return hosts.find({}, { projection: { _id: 0 } }).sort({ key: 1 }).toArray();
    },
    async count() {
      return hosts.countDocuments({});
    },
    async hostByAgentInstance(agentInstanceId) {
      return hosts.findOne({ agent_instance_id: agentInstanceId }, { projection: { _id: 0 }, sort: { last_seen_ms: -1, id: 1 } });
    },
    async setSshAdminOk(hostId, ok, atMs) {
      const res = await hosts.updateOne({ id: hostId }, { $set: { ssh_admin_ok: ok, ssh_admin_checked_at: atMs } });
      return res.matchedCount === 1;
    },
    async setPin(hostId, pin) {
      const res = await hosts.updateOne({ id: hostId }, { $set: { pinned_address: pin?.address ?? null, pinned_winrm_name: pin?.winrm_name ?? null } });
      return res.matchedCount === 1;
    },
    async delete(hostId) {
      cache.forgetWhere((h) => h.id === hostId);
      const res = await db.collection('hosts').deleteOne({ id: hostId });
      // The dashboard's type counters lose this host's events; its host counters go altogether.
      const counted = await db.collection<EventDoc>('events').find({ host_id: hostId }, { projection: { _id: 0, occurred_ms: 1, type: 1, severity: 1 } }).toArray();
      await addRollups(foldRollups(counted.map((e) => ({ ...e, host_id: hostId })), () => false, -1).filter((r) => r.dim === 'type'));
      await dropHostRollups(db, addRollups, hostId);
      await db.collection('events').deleteMany({ host_id: hostId });
      const ids = (await db.collection<{ id: string }>('problems').find({ host_id: hostId }, { projection: { id: 1 } }).toArray()).map((p) => p.id);
      if (ids.length > 0) {
        await db.collection('problem_events').deleteMany({ problem_id: { $in: ids } });
        await db.collection('problem_evidence').deleteMany({ problem_id: { $in: ids } });
      }
      await db.collection('problems').deleteMany({ host_id: hostId });
      await db.collection('event_fingerprints').deleteMany({ host_id: hostId });
      await db.collection('rdg_flaps').deleteMany({ host_id: hostId });
      await db.collection<HostStateDoc>('host_state').deleteOne({ _id: hostId });
      return res.deletedCount === 1;
    },
  };
}
