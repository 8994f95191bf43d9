import { randomBytes } from 'node:crypto';
import type { Db } from 'mongodb';
import { SEVERITIES, type Severity } from '../../../../shared/src/index.js';
import { splitHostTypeKey } from '../rollup-fold.js';
import type { RollupRow, RollupsRepo } from '../rollups.types.js';
import { inParallel } from './query.mongo.js';

/**
 * One writer's counters of one hour and dimension, all in one document: `c` maps
 * `<key>|<severity>` (the key with `%`, `.` and `$` percent-encoded, as field names may hold
 * none of them) to its count. A batch then costs one update per hour and dimension it touches,
 * however many hosts and types it spans (FerretDB commits each update on its own).
 */
type PackedDoc = { _id: string; bucket_ms: number; dim: RollupRow['dim']; writer: string; c: Record<string, number> };
/** A counter row as a document: how counters were kept before they were packed (still read). */
type RowDoc = { _id: string; bucket_ms: number; dim: RollupRow['dim']; key: string; severity: Severity; n: number; writer?: string };

const encodeKey = (key: string) => key.replace(/[%.$]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

function counterField(key: string, severity: Severity): string {
  return `${encodeKey(key)}|${severity}`;
}

function parseField(field: string): { key: string; severity: Severity } | null {
  const at = field.lastIndexOf('|');
  const severity = field.slice(at + 1) as Severity;
  if (at < 0 || !SEVERITIES.includes(severity)) return null;
  return { key: decodeURIComponent(field.slice(0, at)), severity };
}

/** The counter rows of stored documents, whichever way they were written. */
function rowsOf(docs: (PackedDoc | RowDoc)[]): RollupRow[] {
  const out: RollupRow[] = [];
  for (const d of docs) {
    if (!('c' in d)) {
      out.push({ bucket_ms: d.bucket_ms, dim: d.dim, key: d.key, severity: d.severity, n: d.n });
      continue;
    }
    for (const [field, n] of Object.entries(d.c)) {
      const parsed = parseField(field);
      if (parsed) out.push({ bucket_ms: d.bucket_ms, dim: d.dim, ...parsed, n });
    }
  }
  return out;
}

/** Rows added up per `id(row)`; only positive sums are kept. */
function summed(rows: RollupRow[], id: (r: RollupRow) => string, bucket: (r: RollupRow) => number): RollupRow[] {
  const sums = new Map<string, RollupRow>();
  for (const r of rows) {
    const k = id(r);
    const row = sums.get(k);
    if (row) row.n += r.n;
    else sums.set(k, { bucket_ms: bucket(r), dim: r.dim, key: r.key, severity: r.severity, n: r.n });
  }
  return [...sums.values()].filter((r) => r.n > 0);
}

/**
 * Adds counter rows (negative n subtracts). Counters stay exact with several daemons on one
 * store: FerretDB applies `$inc` as read-modify-write of the document, so two writers
 * incrementing one document can lose an increment. Each writer (one per opened store, i.e. per
 * daemon) therefore keeps its own documents and writes them one call at a time; reads add the
 * writers up. A call's documents (one per hour and dimension) are written in parallel.
 */
export function rollupWriter(db: Db): (rows: RollupRow[]) => Promise<void> {
  const rollups = db.collection<PackedDoc>('rollups');
  const writer = randomBytes(6).toString('hex');
  let last: Promise<void> = Promise.resolve();
  const write = async (rows: RollupRow[]) => {
    const docs = new Map<string, { bucket_ms: number; dim: RollupRow['dim']; inc: Record<string, number> }>();
    for (const r of rows) {
      const id = `${r.bucket_ms}|${r.dim}|${writer}`;
      const doc = docs.get(id) ?? { bucket_ms: r.bucket_ms, dim: r.dim, inc: {} };
      const field = `c.${counterField(r.key, r.severity)}`;
      doc.inc[field] = (doc.inc[field] ?? 0) + r.n;
      docs.set(id, doc);
    }
    await inParallel([...docs], ([_id, d]) =>
      rollups.updateOne({ _id }, { $inc: d.inc, $setOnInsert: { bucket_ms: d.bucket_ms, dim: d.dim, writer } }, { upsert: true }),
    );
  };
  return (rows) => {
    if (rows.length === 0) return Promise.resolve();
    const run = last.then(() => write(rows));
    last = run.catch(() => undefined);
    return run;
  };
}

export function mongoRollups(db: Db): RollupsRepo {
  const rollups = db.collection<PackedDoc | RowDoc>('rollups');
  return {
    add: rollupWriter(db),
    async sum(fromMs, toMs) {
      const docs = await rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs } }).toArray();
      return summed(rowsOf(docs), (r) => `${r.dim}|${r.key}|${r.severity}`, () => 0);
    },
    async buckets(fromMs, toMs, dim) {
      const docs = await rollups.find({ bucket_ms: { $gte: fromMs, $lte: toMs }, dim }).toArray();
      return summed(rowsOf(docs), (r) => `${r.bucket_ms}|${r.key}|${r.severity}`, (r) => r.bucket_ms);
    },
  };
}

/**
 * Takes one host's counters out of the host dimensions, for every writer: the sum of each hour is
 * subtracted through `add` (this daemon's writer), as no daemon writes another's documents.
 */
export async function dropHostRollups(db: Db, add: (rows: RollupRow[]) => Promise<void>, hostId: string): Promise<void> {
  const rollups = db.collection<PackedDoc | RowDoc>('rollups');
  // Counter rows written before packing go as they did: they are never written again.
  await rollups.deleteMany({ dim: 'host', key: hostId });
  const docs = await rollups.find({ dim: { $in: ['host', 'host_type'] } }).toArray();
  const ofHost = (r: RollupRow) => (r.dim === 'host' ? r.key === hostId : splitHostTypeKey(r.key).host_id === hostId);
  const totals = new Map<string, RollupRow>();
  for (const r of rowsOf(docs).filter(ofHost)) {
    const k = `${r.bucket_ms}|${r.dim}|${r.key}|${r.severity}`;
    const t = totals.get(k);
    if (t) t.n += r.n;
    else totals.set(k, { ...r });
  }
  await add([...totals.values()].filter((t) => t.n !== 0).map((t) => ({ ...t, n: -t.n })));
}
