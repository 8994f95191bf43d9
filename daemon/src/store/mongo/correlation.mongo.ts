import { randomUUID } from 'node:crypto';
import { MongoBulkWriteError, MongoServerError, type Collection, type Db, type Filter, type ObjectId, type WriteError } from 'mongodb';
import { SEVERITIES, type Event, type Severity } from '../../../../shared/src/index.js';
import type {
  CorrelationRepo,
  EventQuery,
  HostState,
  HostStateRepo,
  LeasesRepo,
  Problem,
  ProblemMatchInput,
  ProblemQuery,
  ProblemsRepo,
  RollupRow,
} from '../correlation.types.js';
import { searchTooBroad } from '../../errors.js';
import { foldRollups } from '../rollup-fold.js';
import { PROBLEM_SORT_FIELD } from './problem-assignee.mongo.js';
import type { StoredEvent } from '../events.types.js';

const DUPLICATE_KEY = 11000;
const ACTIVE: Problem['status'][] = ['open', 'acknowledged'];

/** Migration 3 (issue 4): indexes of problems, timelines, fingerprints, flaps, rollups. */
export const CORRELATION_MONGO_MIGRATION = {
  id: 3,
  name: 'problems, timelines, replay fingerprints, gateway flaps, host state, rollups, job leases',
  async up(db: Db) {
    // Event lists sort by occurred time with the event id as tie-break; without the compound index
    // MongoDB would sort every matching event in memory before taking a page.
    await db.collection('events').createIndexes([{ key: { occurred_ms: -1, event_id: -1 }, name: 'by_occurred_event' }]);
    await db.collection('problems').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { key: 1, status: 1 }, name: 'by_key' },
      { key: { last_seen_ms: -1, id: -1 }, name: 'by_last_seen' },
      { key: { status: 1 }, name: 'by_status' },
      { key: { host_id: 1 }, name: 'by_host' },
      { key: { created_ms: -1 }, name: 'by_created' },
      { key: { resolved_ms: -1 }, name: 'by_resolved' },
    ]);
    await db.collection('problem_events').createIndexes([
      { key: { problem_id: 1, event_id: 1 }, name: 'link_unique', unique: true },
      { key: { problem_id: 1, occurred_ms: -1 }, name: 'by_time' },
    ]);
    await db.collection('event_fingerprints').createIndexes([{ key: { host_id: 1 }, name: 'by_host' }]);
    await db.collection('rdg_flaps').createIndexes([
      { key: { opened_event_id: 1 }, name: 'by_opened' },
      { key: { host_id: 1 }, name: 'by_host' },
    ]);
    await db.collection('rollups').createIndexes([{ key: { bucket_ms: 1 }, name: 'by_bucket' }]);
  },
};

interface ProblemDoc extends Omit<Problem, 'severity'> {
  severity_rank: number;
}

const rank = (s: Severity) => SEVERITIES.indexOf(s);

function toProblem(doc: ProblemDoc): Problem {
  const { severity_rank, ...rest } = doc as ProblemDoc & { _id?: unknown };
  delete rest._id;
  // Problems stored before migration 32 carry no assignee fields.
  return { ...rest, assignee_id: rest.assignee_id ?? null, assignee: rest.assignee ?? null, assigned_ms: rest.assigned_ms ?? null, severity: SEVERITIES[severity_rank] };
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/** The write errors of a bulk write (the driver gives one error as an object, several as an array). */
/**
 * The write errors of a bulk error. Empty means the failure was not per document (a lost
 * connection, a write concern): callers must treat that as a failed write, never as "all stored".
 */
function writeErrorsOf(err: MongoBulkWriteError): WriteError[] {
  return ([] as WriteError[]).concat(err.writeErrors ?? []);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{ $regex }` matching a type pattern itself or any type below it. */
function typePatternRegex(pattern: string): RegExp {
  return new RegExp(`^${escapeRegex(pattern.replace(/\.\*$|\.$/, ''))}(\\.|$)`);
}

function hiddenFilter(hidden: string[]): Record<string, unknown> {
  return hidden.length === 0 ? {} : { $nor: hidden.map((p) => ({ type: typePatternRegex(p) })) };
}

function hiddenAnd(hidden: string[]): Record<string, unknown>[] {
  return hidden.length === 0 ? [] : [hiddenFilter(hidden)];
}

const LOCK_TTL_MS = 30_000;
const LOCK_WAIT_MS = 30_000;

type LockDoc = { _id: string; token: string; expires_ms: number };

/**
 * Short mutual-exclusion locks built on the one primitive FerretDB makes atomic: a unique `_id`
 * insert. FerretDB (no transactions) applies even `$inc` and compare-and-set updates as
 * read-modify-write of the whole document, so every write of a problem (and of a host's state)
 * happens under the lock of its key. Expiry is wall-clock: it only frees the lock of a crashed daemon.
 *
 * All free names are taken with one insertMany and `fn` runs with those; the names held elsewhere
 * are tried again (with backoff) only after that. Never waiting for a lock while holding one keeps
 * two callers with overlapping names from deadlocking.
 */
/**
 * Deletes lock documents now or, when the store does not answer (an outage), retries in the
 * background until it does or the locks expire: otherwise every lock held when the store went
 * away would block its key — one host's ingest — for the whole LOCK_TTL_MS after it came back.
 */
async function releaseLocks(locks: Collection<LockDoc>, filter: Filter<LockDoc>, expiresMs: number): Promise<void> {
  try {
    await locks.deleteMany(filter);
  } catch (err) {
    const retry = () => {
      if (Date.now() > expiresMs) return;
      locks.deleteMany(filter).catch(() => setTimeout(retry, RELEASE_RETRY_MS).unref());
    };
    setTimeout(retry, RELEASE_RETRY_MS).unref();
    throw err;
  }
}

const RELEASE_RETRY_MS = 100;

export async function withLocks(db: Db, names: string[], fn: (acquired: string[]) => Promise<void>): Promise<void> {
  const locks = db.collection<LockDoc>('locks');
  const deadline = Date.now() + LOCK_WAIT_MS;
  let waiting = [...new Set(names)];
  for (let attempt = 0; waiting.length > 0; attempt++) {
    const token = randomUUID();
    const expires = Date.now() + LOCK_TTL_MS;
    const held = new Set<number>();
    try {
      await locks.insertMany(waiting.map((name) => ({ _id: name, token, expires_ms: expires })), { ordered: false });
    } catch (err) {
      const errors = err instanceof MongoBulkWriteError ? writeErrorsOf(err) : [];
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) {
        // Some names may have been taken before the failure: free them now, not in LOCK_TTL_MS.
        await releaseLocks(locks, { token }, expires).catch(() => undefined);
        throw err;
      }
      for (const e of errors) held.add(e.index);
      // A retried insert whose first try landed (its answer lost to a dropped connection) finds
      // our own token: those names are ours, not another holder's.
      if (held.size > 0) {
        const mine = await locks.find({ _id: { $in: waiting.filter((_, i) => held.has(i)) }, token }).toArray();
        for (const doc of mine) held.delete(waiting.indexOf(doc._id));
      }
    }
    const acquired = waiting.filter((_, i) => !held.has(i));
    if (acquired.length > 0) {
      try {
        await fn(acquired);
      } finally {
        await releaseLocks(locks, { _id: { $in: acquired }, token }, expires);
      }
    }
    waiting = waiting.filter((_, i) => held.has(i));
    if (waiting.length === 0) return;
    // Only now and then look for holders that died (their lease ran out).
    if (attempt % 16 === 15) {
      for (const stale of await locks.find({ _id: { $in: waiting }, expires_ms: { $lt: Date.now() } }).toArray()) {
        await locks.deleteOne({ _id: stale._id, token: stale.token });
      }
    }
    if (Date.now() > deadline) throw new Error(`lock ${waiting[0]} not acquired within ${LOCK_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 2 + Math.random() * Math.min(2 * (attempt + 1), 20)));
  }
}

/** `withLocks` for one name. */
export async function withLock<T>(db: Db, name: string, fn: () => Promise<T>): Promise<T> {
  let result!: T;
  await withLocks(db, [name], async () => {
    result = await fn();
  });
  return result;
}

const problemLock = (key: string) => `problem:${key}`;

export function mongoProblems(db: Db): ProblemsRepo {
  const problems = db.collection<ProblemDoc>('problems');
  const links = db.collection<{ problem_id: string; event_id: string; occurred_ms: number; counted: boolean }>('problem_events');

  /** Links are insert-only (unique per problem and event): all of a batch in one insertMany. */
  async function link(rows: { problem_id: string; event_id: string; occurred_ms: number; counted: boolean }[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await links.insertMany(rows, { ordered: false });
    } catch (err) {
      // Already linked (a retried batch): the unique index keeps one link.
      const errors = err instanceof MongoBulkWriteError ? writeErrorsOf(err) : [];
      if (errors.length === 0 || errors.some((e) => e.code !== DUPLICATE_KEY)) throw err;
    }
  }

  function newDoc(
    fields: Omit<ProblemDoc, 'status' | 'acknowledged_by' | 'acknowledged_ms' | 'resolved_by' | 'resolved_by_user' | 'resolved_ms' | 'comments' | 'updated_ms' | 'assignee_id' | 'assignee' | 'assigned_ms'>,
  ): ProblemDoc {
    return {
      ...fields,
      status: 'open',
      updated_ms: fields.created_ms,
      acknowledged_by: null,
      acknowledged_ms: null,
      resolved_by: null,
      resolved_by_user: null,
      resolved_ms: null,
      assignee_id: null,
      assignee: null,
      assigned_ms: null,
      comments: [],
    };
  }

  async function byId(id: string): Promise<Problem | null> {
    const doc = await problems.findOne({ id }, { projection: { _id: 0 } });
    return doc ? toProblem(doc) : null;
  }

  type Match = { problem: Problem | null; created: boolean };

  /**
   * Applies the inputs of `keys` (whose locks the caller holds) in order per key: one read of the
   * keys' active problems, the matching in memory, then one insertMany and one bulkWrite.
   */
  async function matchLocked(keys: string[], inputsOf: Map<string, number[]>, inputs: ProblemMatchInput[], results: Match[]): Promise<void> {
    const batch = keys.flatMap((key) => inputsOf.get(key)!.map((i) => inputs[i]));
    const oldest = Math.min(...batch.map((input) => input.first_ms - input.window_ms));
    // `_id` is kept: FerretDB's SQLite handler uses an index only for a filter on `_id` alone, so
    // the updates below address problems by it instead of scanning the collection for `id`.
    const found = await problems.find({ key: { $in: keys }, status: { $in: ACTIVE }, last_seen_ms: { $gte: oldest } }).toArray();
    const candidates = new Map<string, ProblemDoc[]>(keys.map((key) => [key, []]));
    for (const doc of found) candidates.get(doc.key)!.push(doc);
    const created = new Map<string, ProblemDoc>();
    const grown = new Map<string, ProblemDoc>();
    for (const key of keys) {
      const docs = candidates.get(key)!;
      for (const i of inputsOf.get(key)!) {
        const input = inputs[i];
        const at = docs.reduce<number>((best, d, j) => {
          if (d.first_seen_ms > input.last_ms + input.window_ms || d.last_seen_ms < input.first_ms - input.window_ms) return best;
          return best < 0 || d.last_seen_ms > docs[best].last_seen_ms ? j : best;
        }, -1);
        if (at >= 0) {
          const match = docs[at];
          const next: ProblemDoc = {
            ...match,
            count: match.count + input.count,
            first_seen_ms: Math.min(match.first_seen_ms, input.first_ms),
            last_seen_ms: Math.max(match.last_seen_ms, input.last_ms),
            severity_rank: Math.max(match.severity_rank, rank(input.severity)),
            updated_ms: input.now_ms,
          };
          docs[at] = next;
          (created.has(next.id) ? created : grown).set(next.id, next);
          results[i] = { problem: toProblem(next), created: false };
          continue;
        }
        if (input.count === 0) {
          results[i] = { problem: null, created: false };
          continue;
        }
        const doc = newDoc({
          id: randomUUID(),
          key: input.key,
          fingerprint: input.fingerprint,
          host_id: input.host_id,
          hostname: input.hostname,
          type: input.type,
          rule: input.rule,
          severity_rank: rank(input.severity),
          title: input.title,
          first_seen_ms: input.first_ms,
          last_seen_ms: input.last_ms,
          count: input.count,
          created_ms: input.now_ms,
        });
        docs.push(doc);
        created.set(doc.id, doc);
        results[i] = { problem: toProblem(doc), created: true };
      }
    }
    await Promise.all([
      // Copies: the driver adds `_id` to the documents it is given.
      created.size > 0 ? problems.insertMany([...created.values()].map((d) => ({ ...d }))) : undefined,
      grown.size > 0
        ? problems.bulkWrite(
            [...grown.values()].map((doc) => {
              const { _id, id: _unchanged, ...changed } = doc as ProblemDoc & { _id: ObjectId };
              return { updateOne: { filter: { _id }, update: { $set: changed } } };
            }),
            { ordered: false },
          )
        : undefined,
    ]);
  }

  async function upsertMatchMany(inputs: ProblemMatchInput[]): Promise<Match[]> {
    const inputsOf = new Map<string, number[]>();
    inputs.forEach((input, i) => inputsOf.set(input.key, [...(inputsOf.get(input.key) ?? []), i]));
    const keyOf = new Map([...inputsOf.keys()].map((key) => [problemLock(key), key]));
    const results = new Array<Match>(inputs.length);
    await withLocks(db, [...keyOf.keys()], (acquired) =>
      matchLocked(
        acquired.map((name) => keyOf.get(name)!),
        inputsOf,
        inputs,
        results,
      ),
    );
    // Links are written after the locks are released.
    await link(
      results.flatMap(({ problem }, i) => (problem ? inputs[i].links.map((l) => ({ problem_id: problem.id, ...l })) : [])),
    );
    return results;
  }

  return {
    async upsertMatch(input) {
      return (await upsertMatchMany([input]))[0];
    },
    upsertMatchMany,
    byId,
    async list(q: ProblemQuery) {
      const and: Filter<ProblemDoc>[] = [];
      if (q.statuses?.length) and.push({ status: { $in: q.statuses } });
      if (q.host_ids) and.push({ host_id: { $in: q.host_ids } });
      if (q.type_prefix) and.push({ type: typePatternRegex(q.type_prefix) });
      if (q.rule) and.push({ rule: q.rule });
      if (q.severities?.length) and.push({ severity_rank: { $in: q.severities.map(rank) } });
      if (q.from_ms !== undefined) and.push({ last_seen_ms: { $gte: q.from_ms } });
      if (q.to_ms !== undefined) and.push({ first_seen_ms: { $lt: q.to_ms } });
      // Documents stored before migration 32 have no assignee field: `null` matches a missing one too.
      if (q.assignee_id !== undefined) and.push({ assignee_id: q.assignee_id });
      and.push(...(hiddenAnd(q.hidden) as Filter<ProblemDoc>[]));
      const field = PROBLEM_SORT_FIELD[q.sort ?? 'last_seen'];
      const dir = q.dir === 'asc' ? 1 : -1;
      if (q.after) {
        const cmp = dir === 1 ? '$gt' : '$lt';
        and.push({ $or: [{ [field]: { [cmp]: q.after.value } }, { [field]: q.after.value, id: { [cmp]: q.after.id } }] } as Filter<ProblemDoc>);
      }
      const docs = await problems
        .find(and.length ? { $and: and } : {}, { projection: { _id: 0 } })
        .sort({ [field]: dir, id: dir })
        .limit(q.limit)
        .toArray();
      return docs.map(toProblem);
    },
    async timeline(problemId, limit) {
      const docs = await links.find({ problem_id: problemId }, { projection: { _id: 0 } }).sort({ occurred_ms: -1 }).limit(limit).toArray();
      return docs.map((d) => ({ event_id: d.event_id, occurred_ms: d.occurred_ms, counted: d.counted }));
    },
    async transition(id, from, change) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id, status: { $in: [...from] } }, { projection: { _id: 0 } });
        if (!current) return null;
        const next: ProblemDoc = { ...current, status: change.status, updated_ms: change.now_ms };
        if (change.acknowledged_by !== undefined) Object.assign(next, { acknowledged_by: change.acknowledged_by, acknowledged_ms: change.now_ms });
        if (change.resolved_by !== undefined) {
          Object.assign(next, { resolved_by: change.resolved_by, resolved_by_user: change.resolved_by_user ?? null, resolved_ms: change.now_ms });
        }
        if (change.reopen) {
          Object.assign(next, { acknowledged_by: null, acknowledged_ms: null, resolved_by: null, resolved_by_user: null, resolved_ms: null });
        }
        if (change.comment) next.comments = [...current.comments, change.comment];
        const { id: _id, ...changed } = next;
        await problems.updateOne({ id }, { $set: changed });
        return toProblem(next);
      });
    },
    async assign(id, change) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      // Under the key's lock like every other write of a problem (FerretDB writes whole documents).
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id }, { projection: { _id: 0 } });
        if (!current || (change.expected_id !== undefined && (current.assignee_id ?? null) !== change.expected_id)) return null;
        const set = {
          assignee_id: change.assignee_id,
          assignee: change.assignee,
          assigned_ms: change.assignee_id === null ? null : change.now_ms,
          updated_ms: change.now_ms,
        };
        await problems.updateOne({ id }, { $set: set });
        return toProblem({ ...current, ...set });
      });
    },
    async activeCountsByHost(hidden) {
      const docs = await problems
        .find({ status: { $in: ACTIVE }, ...hiddenFilter(hidden) }, { projection: { _id: 0, host_id: 1 } })
        .toArray();
      const counts = new Map<string, number>();
      for (const d of docs) counts.set(d.host_id, (counts.get(d.host_id) ?? 0) + 1);
      return counts;
    },
    async counts(sinceMs, hidden, untilMs = Number.MAX_SAFE_INTEGER) {
      const h = hiddenFilter(hidden);
      const [open, created_active, resolved] = await Promise.all([
        problems.countDocuments({ status: { $in: ACTIVE }, ...h }),
        problems.countDocuments({ created_ms: { $gte: sinceMs, $lt: untilMs }, status: { $in: ACTIVE }, ...h }),
        problems.countDocuments({ resolved_ms: { $gte: sinceMs, $lt: untilMs }, status: 'resolved', ...h }),
      ]);
      return { open, created_active, resolved };
    },
    async byKeys(keys) {
      if (keys.length === 0) return [];
      const docs = await problems.find({ key: { $in: keys } }, { projection: { _id: 0 } }).toArray();
      return docs.map(toProblem);
    },
    async openSilence(input) {
      return withLock(db, problemLock(input.key), async () => {
        if (await problems.findOne({ key: input.key }, { projection: { id: 1 } })) return null;
        const doc = newDoc({
          id: randomUUID(),
          key: input.key,
          fingerprint: input.fingerprint,
          host_id: input.host_id,
          hostname: input.hostname,
          type: 'host.silence',
          rule: 'host_silence',
          severity_rank: rank('high'),
          title: input.title,
          first_seen_ms: input.now_ms,
          last_seen_ms: input.now_ms,
          count: 1,
          created_ms: input.now_ms,
        });
        await problems.insertOne({ ...doc });
        return toProblem(doc);
      });
    },
    async reopenSilence(id, resolvedMs, nowMs, title) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id, status: 'resolved', resolved_ms: resolvedMs }, { projection: { _id: 0 } });
        if (!current) return null;
        const next: ProblemDoc = {
          ...current,
          status: 'open',
          count: current.count + 1,
          last_seen_ms: nowMs,
          updated_ms: nowMs,
          title,
          acknowledged_by: null,
          acknowledged_ms: null,
          resolved_by: null,
          resolved_by_user: null,
          resolved_ms: null,
        };
        const { id: _id, ...changed } = next;
        await problems.updateOne({ id }, { $set: changed });
        return toProblem(next);
      });
    },
  };
}

type HostStateDoc = Omit<HostState, 'host_id'> & { _id: string };

function toState(doc: HostStateDoc): HostState {
  const { _id, ...rest } = doc;
  return {
    host_id: _id,
    heartbeat_ms: rest.heartbeat_ms ?? null,
    status: rest.status ?? null,
    inventory: rest.inventory ?? null,
    inventory_ms: rest.inventory_ms ?? null,
    previous_inventory: rest.previous_inventory ?? null,
    previous_inventory_ms: rest.previous_inventory_ms ?? null,
  };
}

export function mongoHostState(db: Db): HostStateRepo {
  const states = db.collection<HostStateDoc>('host_state');
  const hostLock = (hostId: string) => `host_state:${hostId}`;
  /** Reads, changes and writes one host's state under the host's lock. */
  const update = <T>(hostId: string, fn: (current: HostState) => { next: HostState | null; result: T }) =>
    withLock(db, hostLock(hostId), async () => {
      const doc = await states.findOne({ _id: hostId });
      const current = doc ? toState(doc) : toState({ _id: hostId } as HostStateDoc);
      const { next, result } = fn(current);
      if (next) {
        const { host_id: _id, ...fields } = next;
        await states.updateOne({ _id: hostId }, { $set: fields }, { upsert: true });
      }
      return result;
    });
  return {
    async recordHeartbeats(items) {
      const latest = new Map<string, number>();
      for (const i of items) latest.set(i.host_id, Math.max(latest.get(i.host_id) ?? 0, i.at_ms));
      const hostOf = new Map([...latest.keys()].map((hostId) => [hostLock(hostId), hostId]));
      const previous = new Map<string, number | null>();
      // All hosts of the batch under their locks at once: one read and one write for all of them.
      await withLocks(db, [...hostOf.keys()], async (acquired) => {
        const ids = acquired.map((name) => hostOf.get(name)!);
        const docs = new Map((await states.find({ _id: { $in: ids } }).toArray()).map((d) => [d._id, d]));
        const writes = ids.flatMap((hostId) => {
          const before = docs.get(hostId)?.heartbeat_ms ?? null;
          previous.set(hostId, before);
          const at = latest.get(hostId)!;
          if (before !== null && before >= at) return [];
          return [{ updateOne: { filter: { _id: hostId }, update: { $set: { heartbeat_ms: at } }, upsert: true } }];
        });
        if (writes.length > 0) await states.bulkWrite(writes, { ordered: false });
      });
      return previous;
    },
    async setStatus(hostId, status) {
      // Already so: nothing to write, so no lock (the read alone is atomic).
      if ((await states.findOne({ _id: hostId }))?.status === status) return false;
      return update(hostId, (cur) => (cur.status === status ? { next: null, result: false } : { next: { ...cur, status }, result: true }));
    },
    async byHost(hostId) {
      const doc = await states.findOne({ _id: hostId });
      return doc ? toState(doc) : null;
    },
    async list() {
      return (await states.find({}).toArray()).map(toState);
    },
    async replaceInventory(hostId, inventory, atMs) {
      return update<{ replaced: boolean; previous: Record<string, unknown> | null }>(hostId, (cur) => {
        if (cur.inventory_ms != null && cur.inventory_ms >= atMs) return { next: null, result: { replaced: false, previous: null } };
        return {
          next: { ...cur, inventory, inventory_ms: atMs, previous_inventory: cur.inventory, previous_inventory_ms: cur.inventory_ms },
          result: { replaced: true, previous: cur.inventory },
        };
      });
    },
  };
}

interface EventDoc {
  event_id: string;
  host_id: string;
  type: string;
  severity: Severity;
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
  event: Event;
}

export function mongoCorrelation(db: Db): CorrelationRepo {
  const fingerprints = db.collection<{ _id: string; host_id: string; event_id: string }>('event_fingerprints');
  const flaps = db.collection<{ _id: string; opened_event_id: string; host_id: string }>('rdg_flaps');
  const events = db.collection<EventDoc>('events');
  const rollups = db.collection<{ _id: string; bucket_ms: number; dim: RollupRow['dim']; key: string; severity: Severity; n: number }>(
    'rollups',
  );

  async function addRollups(rows: RollupRow[]): Promise<void> {
    if (rows.length === 0) return;
    await rollups.bulkWrite(
      rows.map((r) => ({
        updateOne: {
          filter: { _id: `${r.bucket_ms}|${r.dim}|${r.key}|${r.severity}` },
          update: { $inc: { n: r.n }, $setOnInsert: { bucket_ms: r.bucket_ms, dim: r.dim, key: r.key, severity: r.severity } },
          upsert: true,
        },
      })),
      { ordered: false },
    );
  }

  return {
    async setStoredSeverity(updates) {
      if (updates.length === 0) return;
      await events.bulkWrite(
        updates.map((u) => ({ updateOne: { filter: { event_id: u.event_id }, update: { $set: { severity: u.severity } } } })),
        { ordered: false },
      );
    },
    async claimFingerprints(items) {
      if (items.length === 0) return [];
      const claimed = items.map(() => true);
      try {
        await fingerprints.insertMany(
          items.map((i) => ({ _id: i.fp, host_id: i.host_id, event_id: i.event_id })),
          { ordered: false },
        );
      } catch (err) {
        const errors = err instanceof MongoBulkWriteError ? writeErrorsOf(err) : [];
        if (errors.length === 0) throw err;
        for (const e of errors) {
          if (e.code !== DUPLICATE_KEY) throw err;
          claimed[e.index] = false;
        }
      }
      return claimed;
    },
    async markFlap(closedEventId, openedEventId, hostId) {
      try {
        await flaps.insertOne({ _id: closedEventId, opened_event_id: openedEventId, host_id: hostId });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async flapMarked(eventIds) {
      if (eventIds.length === 0) return new Set();
      const docs = await flaps.find({ $or: [{ _id: { $in: eventIds } }, { opened_event_id: { $in: eventIds } }] }).toArray();
      const wanted = new Set(eventIds);
      return new Set(docs.flatMap((d) => [d._id, d.opened_event_id]).filter((id) => wanted.has(id)));
    },
    async search(q: EventQuery) {
      const and = searchFilter(q, true);
      const dir = q.order === 'asc' ? 1 : -1;
      const cursor = events
        .find(and.length ? { $and: and } : {}, { projection: { _id: 0 } })
        .sort({ occurred_ms: dir, event_id: dir })
        .limit(q.limit);
      // The server stops the scan when the budget is spent (MaxTimeMSExpired, code 50).
      if (q.budget_ms !== undefined) cursor.maxTimeMS(q.budget_ms);
      let docs: EventDoc[];
      try {
        docs = await cursor.toArray();
      } catch (err) {
        if ((err as { code?: unknown }).code === 50) throw searchTooBroad();
        throw err;
      }
      return docs.map((d): StoredEvent => ({ ...d, occurred_at: d.event.occurred_at }));
    },
    async countMatching(q: EventQuery) {
      const and = searchFilter(q, false);
      return events.countDocuments(and.length ? { $and: and } : {});
    },
    async eventDetails(q) {
      const projection: Record<string, 0 | 1> = { _id: 0, event_id: 1, host_id: 1, type: 1, occurred_ms: 1 };
      for (const k of q.keys) projection[`event.details.${k}`] = 1;
      const docs = await events
        .find({ host_id: q.host_id, type: { $in: q.types }, occurred_ms: { $gte: q.from_ms, $lt: q.to_ms } }, { projection })
        .sort({ occurred_ms: -1, event_id: -1 })
        .limit(q.limit)
        .toArray();
      return docs.map((d) => ({
        event_id: d.event_id,
        host_id: d.host_id,
        type: d.type,
        occurred_ms: d.occurred_ms,
        details: { ...(d.event?.details ?? {}) },
      }));
    },
    addRollups,
    async sumRollups(fromMs, toMs) {
      const docs = await rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs } }, { projection: { _id: 0 } }).toArray();
      const sums = new Map<string, RollupRow>();
      for (const d of docs) {
        const id = `${d.dim}|${d.key}|${d.severity}`;
        const row = sums.get(id);
        if (row) row.n += d.n;
        else sums.set(id, { bucket_ms: 0, dim: d.dim, key: d.key, severity: d.severity, n: d.n });
      }
      return [...sums.values()].filter((r) => r.n > 0);
    },
    async rollupBuckets(fromMs, toMs, dim) {
      return rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs }, dim, n: { $gt: 0 } }, { projection: { _id: 0 } }).toArray();
    },
    async pruneEvents(beforeMs, limit) {
      const ids = (await events.find({ occurred_ms: { $lt: beforeMs } }, { projection: { _id: 0, event_id: 1 } }).sort({ occurred_ms: 1 }).limit(limit).toArray()).map(
        (d) => d.event_id,
      );
      if (ids.length === 0) return 0;
      await flaps.deleteMany({ _id: { $in: ids } });
      return (await events.deleteMany({ event_id: { $in: ids } })).deletedCount;
    },
    async deleteHost(hostId) {
      const res = await db.collection('hosts').deleteOne({ id: hostId });
      // The dashboard's type counters lose this host's events; its host counters go altogether.
      const counted = await events.find({ host_id: hostId }, { projection: { _id: 0, occurred_ms: 1, type: 1, severity: 1 } }).toArray();
      await addRollups(foldRollups(counted.map((e) => ({ ...e, host_id: hostId })), () => false, -1));
      await rollups.deleteMany({ dim: 'host', key: hostId });
      await events.deleteMany({ host_id: hostId });
      const ids = (await db.collection<ProblemDoc>('problems').find({ host_id: hostId }, { projection: { id: 1 } }).toArray()).map((p) => p.id);
      if (ids.length > 0) await db.collection('problem_events').deleteMany({ problem_id: { $in: ids } });
      await db.collection('problems').deleteMany({ host_id: hostId });
      await fingerprints.deleteMany({ host_id: hostId });
      await flaps.deleteMany({ host_id: hostId });
      await db.collection<HostStateDoc>('host_state').deleteOne({ _id: hostId });
      return res.deletedCount === 1;
    },
  };
}

export function mongoLeases(db: Db): LeasesRepo {
  const leases = db.collection<{ _id: string; owner: string; expires_ms: number }>('leases');
  return {
    async acquire(name, owner, nowMs, ttlMs) {
      return withLock(db, `lease:${name}`, async () => {
        const held = await leases.findOne({ _id: name });
        if (held && held.owner !== owner && held.expires_ms > nowMs) return false;
        await leases.updateOne({ _id: name }, { $set: { owner, expires_ms: nowMs + ttlMs } }, { upsert: true });
        return true;
      });
    },
    async release(name, owner) {
      await withLock(db, `lease:${name}`, () => leases.deleteOne({ _id: name, owner }));
    },
  };
}

/** Filter terms of an event search; `withCursor` adds the keyset position of `after` in the query's order. */
function searchFilter(q: EventQuery, withCursor: boolean): Filter<EventDoc>[] {
  const and: Filter<EventDoc>[] = [];
  if (q.event_ids) and.push({ event_id: { $in: q.event_ids } });
  if (q.host_ids) and.push({ host_id: { $in: q.host_ids } });
  if (q.severities?.length) and.push({ severity: { $in: q.severities } });
  if (q.type_prefix) and.push({ type: typePatternRegex(q.type_prefix) });
  if (q.types) and.push({ type: { $in: q.types } });
  if (q.from_ms !== undefined) and.push({ occurred_ms: { $gte: q.from_ms } });
  if (q.to_ms !== undefined) and.push({ occurred_ms: { $lt: q.to_ms } });
  if (q.q) {
    const re = new RegExp(escapeRegex(q.q), 'i');
    and.push({ $or: [{ 'event.title': re }, { 'event.summary': re }] });
  }
  if (q.actor !== undefined) and.push({ actor_user: q.actor });
  if (q.ip !== undefined) and.push({ $or: IP_FIELDS.map((f) => ({ [f]: q.ip })) } as Filter<EventDoc>);
  and.push(...(hiddenAnd(q.hidden) as Filter<EventDoc>[]));
  if (withCursor && q.after) {
    const op = q.order === 'asc' ? '$gt' : '$lt';
    and.push({
      $or: [{ occurred_ms: { [op]: q.after.occurred_ms } }, { occurred_ms: q.after.occurred_ms, event_id: { [op]: q.after.event_id } }],
    } as Filter<EventDoc>);
  }
  return and;
}

/** Where the agents put the remote address of an event. */
const IP_FIELDS = ['event.details.ip_address', 'event.details.source_ip', 'event.details.external_ip'];
