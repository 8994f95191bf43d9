import { randomUUID } from 'node:crypto';
import type { Db, Filter, ObjectId } from 'mongodb';
import { SEVERITIES } from '../../../../shared/src/index.js';
import type { Problem, ProblemMatchInput, ProblemQuery, ProblemsRepo } from '../problems.types.js';
import {
  ACTIVE_PROBLEM_STATUSES,
  assignedProblem,
  assignmentApplies,
  grownProblem,
  matchIndex,
  openedProblem,
  reopenedSilence,
  severityRank,
  silenceProblem,
  transitionedProblem,
} from '../problem-rules.js';
import { withLock, withLocks } from './locks.mongo.js';
import { PROBLEM_SORT_FIELD } from './problem-assignee.mongo.js';
import { findEach, hiddenAnd, hiddenFilter, inParallel, onlyDuplicates, typePatternRegex } from './query.mongo.js';

/** Stored with the severity's rank, so the highest can be kept by comparing numbers. */
interface ProblemDoc extends Omit<Problem, 'severity'> {
  severity_rank: number;
}

const ACTIVE = [...ACTIVE_PROBLEM_STATUSES];

function toProblem(doc: ProblemDoc): Problem {
  const { severity_rank, ...rest } = doc as ProblemDoc & { _id?: unknown };
  delete rest._id;
  // Problems stored before migration 32 carry no assignee fields.
  return { ...rest, assignee_id: rest.assignee_id ?? null, assignee: rest.assignee ?? null, assigned_ms: rest.assigned_ms ?? null, severity: SEVERITIES[severity_rank] };
}

/** The `_id` of a document read with it, kept on its next version (the updates address it). */
const keepId = (doc: ProblemDoc): { _id?: unknown } => ('_id' in doc ? { _id: (doc as { _id: unknown })._id } : {});

function toDoc(p: Problem): ProblemDoc {
  const { severity, ...rest } = p;
  return { ...rest, severity_rank: severityRank(severity) };
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
      if (!onlyDuplicates(err)) throw err;
    }
  }

  async function byId(id: string): Promise<Problem | null> {
    const doc = await problems.findOne({ id }, { projection: { _id: 0 } });
    return doc ? toProblem(doc) : null;
  }

  type Match = { problem: Problem | null; created: boolean };

  /**
   * Applies the inputs of `keys` (whose locks the caller holds) in order per key: one read of the
   * keys' active problems, the matching in memory, then one insertMany and the updates in parallel.
   */
  async function matchLocked(keys: string[], inputsOf: Map<string, number[]>, inputs: ProblemMatchInput[], results: Match[]): Promise<void> {
    const batch = keys.flatMap((key) => inputsOf.get(key)!.map((i) => inputs[i]));
    const oldest = Math.min(...batch.map((input) => input.first_ms - input.window_ms));
    // `_id` is kept: FerretDB's SQLite handler uses an index only for a filter on `_id` alone, so
    // the updates below address problems by it instead of scanning the collection for `id`.
    const active = new Set<string>(ACTIVE);
    const found = (await findEach(problems, keys.map((key) => ({ key })))).filter((doc) => active.has(doc.status) && doc.last_seen_ms >= oldest);
    const candidates = new Map<string, ProblemDoc[]>(keys.map((key) => [key, []]));
    for (const doc of found) candidates.get(doc.key)!.push(doc);
    const created = new Map<string, ProblemDoc>();
    const grown = new Map<string, ProblemDoc>();
    for (const key of keys) {
      const docs = candidates.get(key)!;
      for (const i of inputsOf.get(key)!) {
        const input = inputs[i];
        const at = matchIndex(docs, input);
        if (at >= 0) {
          const match = docs[at];
          const next: ProblemDoc = { ...toDoc(grownProblem(toProblem(match), input)), ...keepId(match) };
          docs[at] = next;
          (created.has(next.id) ? created : grown).set(next.id, next);
          results[i] = { problem: toProblem(next), created: false };
          continue;
        }
        const opened = openedProblem(input, randomUUID());
        if (!opened) {
          results[i] = { problem: null, created: false };
          continue;
        }
        const doc = toDoc(opened);
        docs.push(doc);
        created.set(doc.id, doc);
        results[i] = { problem: opened, created: true };
      }
    }
    await Promise.all([
      // Copies: the driver adds `_id` to the documents it is given.
      created.size > 0 ? problems.insertMany([...created.values()].map((d) => ({ ...d }))) : undefined,
      // Each grown problem its own operation: they commit together rather than one after the other.
      inParallel([...grown.values()], (doc) => {
        const { _id, id: _unchanged, ...changed } = doc as ProblemDoc & { _id: ObjectId };
        return problems.updateOne({ _id }, { $set: changed });
      }),
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
    async transition(id, from, change) {
      const before = await problems.findOne({ id }, { projection: { key: 1 } });
      if (!before) return null;
      return withLock(db, problemLock(before.key), async () => {
        const current = await problems.findOne({ id, status: { $in: [...from] } }, { projection: { _id: 0 } });
        if (!current) return null;
        const next = transitionedProblem(toProblem(current), change);
        const { id: _id, ...changed } = toDoc(next);
        await problems.updateOne({ id }, { $set: changed });
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
        await problems.updateOne({ id }, { $set: { assignee_id: next.assignee_id, assignee: next.assignee, assigned_ms: next.assigned_ms, updated_ms: next.updated_ms } });
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
      const docs = await findEach(problems, [...new Set(keys)].map((key) => ({ key })), { projection: { _id: 0 } });
      return docs.map(toProblem);
    },
    async openSilence(input) {
      return withLock(db, problemLock(input.key), async () => {
        if (await problems.findOne({ key: input.key }, { projection: { id: 1 } })) return null;
        const problem = silenceProblem(input, randomUUID());
        await problems.insertOne(toDoc(problem));
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
        await problems.updateOne({ id }, { $set: changed });
        return next;
      });
    },
  };
}
