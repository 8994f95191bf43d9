import { randomUUID } from 'node:crypto';
import type { Db, Filter, ObjectId } from 'mongodb';
import { IP_KEYS, SEVERITIES, type ProblemEvidence } from '../../../../shared/src/index.js';
import type { EventDoc } from './event-doc.mongo.js';
import type { Problem, ProblemMatchInput, ProblemQuery, ProblemsRepo } from '../problems.types.js';
import {
  ACTIVE_PROBLEM_STATUSES,
  assignedProblem,
  assignmentApplies,
  grownProblem,
  matchIndex,
  openedProblem,
  problemFacts,
  reopenedSilence,
  severityRank,
  silenceProblem,
  transitionedProblem,
} from '../problem-rules.js';
import { withLock, withLocks } from './locks.mongo.js';
import { PROBLEM_SORT_FIELD } from './problem-assignee.mongo.js';
import { CopyCache } from './copy-cache.mongo.js';
import { escapeRegex, findEach, hiddenAnd, hiddenFilter, inParallel, onlyDuplicates, typePatternRegex } from './query.mongo.js';

/**
 * Stored with the severity's rank, so the highest can be kept by comparing numbers, and a revision
 * every write of the problem raises (absent on problems stored before it), so a write from a copy
 * can tell whether the copy is still the stored problem.
 */
interface ProblemDoc extends Omit<Problem, 'severity'> {
  severity_rank: number;
  rev?: number;
}

const ACTIVE = [...ACTIVE_PROBLEM_STATUSES];

/** Event ids per lookup of a problem's facts. */
const FACT_CHUNK = 1000;

/** The fields a problem may hold null in; a new problem is stored without them (see newDoc). */
const NULLABLE = [
  'acknowledged_by',
  'acknowledged_ms',
  'resolved_by',
  'resolved_by_user',
  'resolved_ms',
  'assignee_id',
  'assignee',
  'assigned_ms',
] as const satisfies readonly (keyof Problem)[];

function toProblem(doc: ProblemDoc): Problem {
  const { severity_rank, rev: _rev, ...rest } = doc as ProblemDoc & { _id?: unknown };
  delete rest._id;
  // A problem stored new has no null fields; those stored before migration 32 no assignee fields.
  const missing = Object.fromEntries(NULLABLE.filter((f) => rest[f] === undefined).map((f) => [f, null]));
  return { ...rest, ...missing, severity: SEVERITIES[severity_rank] };
}

/** The `_id` of a document read with it, kept on its next version (the updates address it). */
const keepId = (doc: ProblemDoc): { _id?: unknown } => ('_id' in doc ? { _id: (doc as { _id: unknown })._id } : {});

function toDoc(p: Problem): ProblemDoc {
  const { severity, ...rest } = p;
  return { ...rest, severity_rank: severityRank(severity) };
}

/**
 * A problem as first stored: its null fields left out. FerretDB on PostgreSQL compresses a
 * document over about 2 KB, and every query decompresses each one it scans; each null field
 * costs about 70 bytes there (value, type and key order), which took a new problem over.
 */
function newDoc(p: Problem): ProblemDoc {
  const doc = toDoc(p);
  for (const field of NULLABLE) if (doc[field] === null) delete doc[field];
  return doc;
}

const problemLock = (key: string) => `problem:${key}`;

/** Migration 67: the evidence a login-intelligence rule stores with the problem it opens, one document per problem. */
export const PROBLEM_EVIDENCE_MONGO_MIGRATION = {
  id: 67,
  name: 'problem evidence (why a login-intelligence problem opened)',
  async up(db: Db) {
    await db.collection('problem_evidence').createIndexes([{ key: { problem_id: 1 }, name: 'problem_unique', unique: true }]);
  },
};

export function mongoProblems(db: Db): ProblemsRepo {
  const problems = db.collection<ProblemDoc>('problems');
  const links = db.collection<{ problem_id: string; event_id: string; occurred_ms: number; counted: boolean }>('problem_events');
  const events = db.collection<EventDoc>('events');
  const evidenceDocs = db.collection<{ problem_id: string; evidence: ProblemEvidence }>('problem_evidence');

  /** Links are insert-only (unique per problem and event): all of a batch in one insertMany. */
  async function link(rows: { problem_id: string; event_id: string; occurred_ms: number; counted: boolean }[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await links.insertMany(rows, { ordered: false });
    } catch (err) {
      // Already linked (a retried batch): the unique index keeps one link.
      if (!onlyDuplicates(err)) throw err;
    }
  }

  async function byId(id: string): Promise<Problem | null> {
    const doc = await problems.findOne({ id }, { projection: { _id: 0 } });
    return doc ? toProblem(doc) : null;
  }

  type Match = { problem: Problem | null; created: boolean };
  /** What a key's inputs make of its active problems: the problems after, the ones opened and grown, each input's result. */
  type KeyPlan = { docs: ProblemDoc[]; created: ProblemDoc[]; grown: { doc: ProblemDoc; storedRev: number | null }[]; results: [number, Match][] };

  /**
   * The active problems of each key, as this daemon last read or wrote them. A key whose inputs
   * only grow one cached problem is written from the copy, the update conditional on the copy's
   * revision; any other key (a problem to open, several to grow, no copy) is read first. A copy
   * another writer has changed since — the other writers hold the key's lock too and raise the
   * revision — fails its condition, and its key is read and planned again.
   */
  // At most 20,000 keys (a problem's copy is about 1 KB): past that, the least recently written are read again.
  const activeCopies = new CopyCache<ProblemDoc[]>({ ttlMs: 60_000, max: 20_000 });

  function planKey(docs: ProblemDoc[], indexes: number[], inputs: ProblemMatchInput[]): KeyPlan {
    const plan: KeyPlan = { docs: [...docs], created: [], grown: [], results: [] };
    const created = new Map<string, ProblemDoc>();
    const grown = new Map<string, { doc: ProblemDoc; storedRev: number | null }>();
    for (const i of indexes) {
      const input = inputs[i];
      const at = matchIndex(plan.docs, input);
      if (at >= 0) {
        const match = plan.docs[at];
        const next: ProblemDoc = { ...toDoc(grownProblem(toProblem(match), input)), ...keepId(match), rev: match.rev };
        plan.docs[at] = next;
        if (created.has(next.id)) created.set(next.id, next);
        else grown.set(next.id, { doc: next, storedRev: grown.get(next.id)?.storedRev ?? match.rev ?? null });
        plan.results.push([i, { problem: toProblem(next), created: false }]);
        continue;
      }
      const opened = openedProblem(input, randomUUID());
      if (!opened) {
        plan.results.push([i, { problem: null, created: false }]);
        continue;
      }
      const doc: ProblemDoc = { ...newDoc(opened), rev: 1 };
      plan.docs.push(doc);
      created.set(doc.id, doc);
      plan.results.push([i, { problem: opened, created: true }]);
    }
    plan.created = [...created.values()];
    plan.grown = [...grown.values()].map((g) => ({ ...g, doc: { ...g.doc, rev: (g.storedRev ?? 0) + 1 } }));
    // The copy kept after the write: the grown problems at their new revision.
    const written = new Map(plan.grown.map((g) => [g.doc.id, g.doc]));
    plan.docs = plan.docs.map((d) => written.get(d.id) ?? d);
    return plan;
  }

  /**
   * Applies the inputs of `keys` (whose locks the caller holds) in order per key: the keys without
   * a usable copy read with one query each, the matching in memory, then one insertMany and the
   * updates in parallel.
   */
  async function matchLocked(keys: string[], inputsOf: Map<string, number[]>, inputs: ProblemMatchInput[], results: Match[]): Promise<void> {
    const now = Date.now();
    const plans = new Map<string, KeyPlan>();
    let toRead: string[] = [];
    for (const key of keys) {
      const copy = activeCopies.fresh(key, now);
      const plan = copy && planKey(copy, inputsOf.get(key)!, inputs);
      if (plan && plan.created.length === 0 && plan.grown.length <= 1) plans.set(key, plan);
      else toRead.push(key);
    }
    const active = new Set<string>(ACTIVE);
    // A key read under its lock has no other writer, so the second round is the last one.
    for (let round = 0; round < 2; round++) {
      const fromCopies = new Set(plans.keys());
      if (toRead.length > 0) {
        // One equality query per key: FerretDB hands it to PostgreSQL, but reads the whole
        // collection itself for `$in`. `_id` is kept: the updates address problems by it.
        const found = await findEach(problems, toRead.map((key) => ({ key })));
        const byKey = new Map<string, ProblemDoc[]>(toRead.map((key) => [key, []]));
        for (const doc of found) if (active.has(doc.status)) byKey.get(doc.key)!.push(doc);
        for (const [key, docs] of byKey) plans.set(key, planKey(docs, inputsOf.get(key)!, inputs));
      }
      const stale: string[] = [];
      const writes = [...plans].filter(([key]) => round === 0 || toRead.includes(key));
      await Promise.all([
        // The driver gives each document it inserts an `_id`: the copies kept get theirs.
        writes.some(([, p]) => p.created.length > 0)
          ? problems.insertMany(writes.flatMap(([, p]) => p.created))
          : undefined,
        // Each grown problem its own operation: they commit together rather than one after the other.
        inParallel(
          writes.flatMap(([key, p]) => p.grown.map((g) => ({ key, ...g }))),
          async ({ key, doc, storedRev }) => {
            const { _id, count, first_seen_ms, last_seen_ms, severity_rank, updated_ms, rev } = doc as ProblemDoc & { _id: ObjectId };
            // Only what growing changes (grownProblem). `rev: null` also matches a problem stored before revisions.
            const res = await problems.updateOne({ _id, rev: storedRev } as Filter<ProblemDoc>, {
              $set: { count, first_seen_ms, last_seen_ms, severity_rank, updated_ms, rev },
            });
            if (res.matchedCount === 0 && fromCopies.has(key)) stale.push(key);
          },
        ),
      ]);
      for (const [key, plan] of writes) {
        if (stale.includes(key)) {
          activeCopies.forget(key);
          continue;
        }
        activeCopies.set(key, plan.docs, now);
        for (const [i, match] of plan.results) results[i] = match;
      }
      toRead = stale;
      if (toRead.length === 0) return;
      for (const key of stale) plans.delete(key);
    }
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
    // Links and the new problems' evidence are written after the locks are released.
    const evidence = results.flatMap(({ problem, created }, i) => {
      const found = inputs[i].evidence;
      return created && problem && found ? [{ problem_id: problem.id, evidence: found }] : [];
    });
    await Promise.all([
      link(results.flatMap(({ problem }, i) => (problem ? inputs[i].links.map((l) => ({ problem_id: problem.id, ...l })) : []))),
      evidence.length === 0 ? undefined : evidenceDocs.insertMany(evidence, { ordered: false }),
    ]);
    return results;
  }

  return {
    async upsertMatch(input) {
      return (await upsertMatchMany([input]))[0];
    },
    upsertMatchMany,
    byId,
    async evidence(problemId) {
      return (await evidenceDocs.findOne({ problem_id: problemId }, { projection: { _id: 0 } }))?.evidence ?? null;
    },
    async list(q: ProblemQuery) {
      const and: Filter<ProblemDoc>[] = [];
      if (q.statuses?.length) and.push({ status: { $in: q.statuses } });
      if (q.host_ids) and.push({ host_id: { $in: q.host_ids } });
      if (q.type_prefix) and.push({ type: typePatternRegex(q.type_prefix) });
      if (q.rule) and.push({ rule: new RegExp(escapeRegex(q.rule)) });
      if (q.severities?.length) and.push({ severity_rank: { $in: q.severities.map(severityRank) } });
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
    async facts(problemId) {
      const ids = (await links.find({ problem_id: problemId, counted: true }, { projection: { _id: 0, event_id: 1 } }).toArray()).map((l) => l.event_id);
      const chunks: string[][] = [];
      for (let i = 0; i < ids.length; i += FACT_CHUNK) chunks.push(ids.slice(i, i + FACT_CHUNK));
      const docs = await findEach(
        events,
        chunks.map((chunk) => ({ event_id: { $in: chunk } })),
        { projection: { _id: 0, actor_user: 1, 'event.host.hostname': 1, ...Object.fromEntries(IP_KEYS.map((k) => [`event.details.${k}`, 1])) } },
      );
      return problemFacts(docs.map((d) => ({ actor_user: d.actor_user, hostname: d.event.host.hostname, details: d.event.details ?? {}, n: 1 })));
    },
    async transition(id, from, change) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id, status: { $in: [...from] } }, { projection: { _id: 0 } });
        if (!current) return null;
        const next = transitionedProblem(toProblem(current), change);
        const { id: _id, ...changed } = toDoc(next);
        await problems.updateOne({ id }, { $set: changed, $inc: { rev: 1 } });
        return next;
      });
    },
    async assign(id, change) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      // Under the key's lock like every other write of a problem (FerretDB writes whole documents).
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id }, { projection: { _id: 0 } });
        if (!current) return null;
        const problem = toProblem(current);
        if (!assignmentApplies(problem, change)) return null;
        const next = assignedProblem(problem, change);
        await problems.updateOne(
          { id },
          { $set: { assignee_id: next.assignee_id, assignee: next.assignee, assigned_ms: next.assigned_ms, updated_ms: next.updated_ms }, $inc: { rev: 1 } },
        );
        return next;
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
    async activeCountsBySeverity() {
      const counts = await Promise.all(SEVERITIES.map((severity) => problems.countDocuments({ status: { $in: ACTIVE }, severity_rank: severityRank(severity) })));
      return new Map(SEVERITIES.map((s, i) => [s, counts[i]]));
    },
    async counts(sinceMs, hidden, untilMs = Number.MAX_SAFE_INTEGER, hostIds) {
      const h = { ...hiddenFilter(hidden), ...(hostIds ? { host_id: { $in: [...hostIds] } } : {}) };
      const [open, created_active, resolved] = await Promise.all([
        problems.countDocuments({ status: { $in: ACTIVE }, ...h }),
        problems.countDocuments({ created_ms: { $gte: sinceMs, $lt: untilMs }, status: { $in: ACTIVE }, ...h }),
        problems.countDocuments({ resolved_ms: { $gte: sinceMs, $lt: untilMs }, status: 'resolved', ...h }),
      ]);
      return { open, created_active, resolved };
    },
    async openedByType(sinceMs, limit) {
      const groups = await problems
        .aggregate<{ _id: { type: string; rule: string }; opened: number }>([
          { $match: { created_ms: { $gte: sinceMs } } },
          { $group: { _id: { type: '$type', rule: '$rule' }, opened: { $sum: 1 } } },
        ])
        .toArray();
      const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      return groups
        .map((g) => ({ type: g._id.type, rule: g._id.rule, opened: g.opened }))
        .sort((a, b) => b.opened - a.opened || order(a.type, b.type) || order(a.rule, b.rule))
        .slice(0, limit);
    },
    async byKeys(keys) {
      if (keys.length === 0) return [];
      // One query for all the keys: FerretDB hands the rule's equality to PostgreSQL and keeps
      // only the silence problems (few) to match against the keys itself.
      const docs = await problems.find({ rule: 'host_silence', key: { $in: [...new Set(keys)] } }, { projection: { _id: 0 } }).toArray();
      return docs.map(toProblem);
    },
    async openSilence(input) {
      return withLock(db, problemLock(input.key), async () => {
        if (await problems.findOne({ key: input.key }, { projection: { id: 1 } })) return null;
        const problem = silenceProblem(input, randomUUID());
        await problems.insertOne(newDoc(problem));
        return problem;
      });
    },
    async reopenSilence(id, resolvedMs, nowMs, title) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id, status: 'resolved', resolved_ms: resolvedMs }, { projection: { _id: 0 } });
        if (!current) return null;
        const next = reopenedSilence(toProblem(current), nowMs, title);
        const { id: _id, ...changed } = toDoc(next);
        await problems.updateOne({ id }, { $set: changed, $inc: { rev: 1 } });
        return next;
      });
    },
  };
}
