/* eslint-disable no-console -- a benchmark prints its figures */
import { readdirSync, readFileSync } from 'node:fs';
import { Collection } from 'mongodb';
import { parseEvent } from '../../shared/src/index.js';
import { DEFAULT_CROSS_HOST_RULES, type CorrelationSettings } from '../../daemon/src/correlation/index.js';
import { createIngestPipeline } from '../../daemon/src/ingest/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { openStore, type NewEvent } from '../../daemon/src/store/index.js';
import { startFerretDb } from '../ferretdb.js';
import { createEventFactory } from './lib/event-factory.js';
import { cpuSeconds, machineLine } from './lib/proc.js';

/**
 * `npm run bench:mongo-pipeline`: the MongoDB ingest pipeline alone — the bench's event mix
 * committed through `createIngestPipeline` on a fresh database of FerretDB on PostgreSQL, batches
 * of BENCH_BATCH (default 128) with two in flight as the daemon commits them, no HTTP. Prints the
 * rate, the CPU per event of this process, FerretDB and PostgreSQL, and per collection and
 * operation the driver calls per batch, their mean time and the documents each returned or
 * wrote: on FerretDB every query scans its collection, so these counts are what the store costs.
 * `--no-correlation` hides every event type from correlation (events, hosts and heartbeats only).
 * Env: BENCH_BATCH, BENCH_BATCHES (default 60).
 */
const BATCH = Number(process.env.BENCH_BATCH ?? 128);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 60);
const IN_FLIGHT = 2;
const CORRELATION = !process.argv.includes('--no-correlation');

const settings: CorrelationSettings = {
  windowMinutes: 30,
  severityOverrides: {},
  // Every type of the mix hidden: nothing is correlated.
  hiddenTypes: CORRELATION ? [] : ['agent', 'rdp', 'rdg', 'ssh', 'smb', 'winrm', 'privilege'],
  staleMinutes: 10,
  staleMinutesByProduct: {},
  silenceCooldownMinutes: 720,
  crossHost: DEFAULT_CROSS_HOST_RULES,
  typeProblems: {},
  adminUsers: new Set(),
};

/** Driver calls per collection and operation, counted by wrapping the driver's methods (this process only). */
const calls = new Map<string, { n: number; ms: number; docs: number }>();
function countDriverCalls(): void {
  let nested = 0;
  const proto = Collection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const op of ['find', 'findOne', 'findOneAndUpdate', 'bulkWrite', 'insertMany', 'insertOne', 'updateOne', 'updateMany', 'deleteMany', 'deleteOne', 'countDocuments']) {
    const original = proto[op];
    proto[op] = function (this: Collection, ...args: unknown[]) {
      const started = performance.now();
      const record = (docs: number) => {
        const key = `${this.collectionName}.${op}`;
        const c = calls.get(key) ?? { n: 0, ms: 0, docs: 0 };
        c.n++;
        c.ms += performance.now() - started;
        c.docs += docs;
        calls.set(key, c);
      };
      // A call the driver makes inside another (insertMany's bulkWrite) is not counted again.
      if (nested > 0) return original.apply(this, args);
      nested++;
      let result: unknown;
      try {
        result = original.apply(this, args);
      } finally {
        nested--;
      }
      if (op === 'find') {
        // A cursor: counted when it is read to the end.
        const cursor = result as { toArray(): Promise<unknown[]> };
        const toArray = cursor.toArray.bind(cursor);
        cursor.toArray = async () => {
          const docs = await toArray();
          record(docs.length);
          return docs;
        };
        return cursor;
      }
      return Promise.resolve(result).then((value) => {
        record(Array.isArray(args[0]) ? args[0].length : 1);
        return value;
      });
    };
  }
}

/** CPU seconds of a PostgreSQL cluster: its postmaster (found by its data directory) and the postmaster's children. */
function postgresCpuSeconds(dataDir: string): number {
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  const parentOf = (pid: string): string | null => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    } catch {
      return null;
    }
  };
  const postmaster = pids.find((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return cmd[0].endsWith('/postgres') && cmd.includes(dataDir);
    } catch {
      return false;
    }
  });
  if (!postmaster) return 0;
  const cluster = pids.filter((pid) => pid === postmaster || parentOf(pid) === postmaster);
  return cluster.reduce((sum, pid) => {
    try {
      return sum + cpuSeconds(Number(pid));
    } catch {
      return sum;
    }
  }, 0);
}

function newEvents(factory: ReturnType<typeof createEventFactory>): NewEvent[] {
  return Array.from({ length: BATCH }, () => {
    const parsed = parseEvent(JSON.parse(factory.next().body));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const { event } = parsed;
    const now = Date.now();
    return { event, host: hostObservation(event, now), occurred_ms: Date.parse(event.occurred_at), received_ms: now, actor_user: actorUser(event), agent_version: event.source.product_version };
  });
}

async function main(): Promise<void> {
  console.log(`bench:mongo-pipeline — FerretDB postgresql, ${BATCHES} batches of ${BATCH}, ${IN_FLIGHT} in flight, correlation ${CORRELATION ? 'on' : 'off'}`);
  console.log(machineLine());
  const ferret = await startFerretDb({ handler: 'postgresql', logLevel: 'error' });
  const pgData = `${ferret.postgres!.dir}/data`;
  const store = await openStore({ kind: 'mongodb', uri: ferret.uri, dbName: 'bench_pipeline' });
  try {
    countDriverCalls();
    // Per correlation call: its problem keys and the hosts they belong to (what packing per host could merge).
    const matched = { calls: 0, keys: 0, hosts: 0 };
    const upsertMatchMany = store.problems.upsertMatchMany.bind(store.problems);
    store.problems.upsertMatchMany = (inputs) => {
      matched.calls++;
      matched.keys += new Set(inputs.map((i) => i.key)).size;
      matched.hosts += new Set(inputs.map((i) => i.host_id)).size;
      return upsertMatchMany(inputs);
    };
    const pipeline = createIngestPipeline(store);
    const factory = createEventFactory();
    const cpu0 = { self: process.cpuUsage(), ferret: cpuSeconds(ferret.pid), pg: postgresCpuSeconds(pgData) };
    const pg0 = { commits: ferret.postgres!.commits(), syncs: ferret.postgres!.walSyncs() };
    const started = performance.now();
    const batchMs: number[] = [];
    let next = 0;
    const committer = async () => {
      while (next < BATCHES) {
        next++;
        const t = performance.now();
        await pipeline.commit(newEvents(factory), () => ({ now_ms: Date.now(), correlation: settings, notify: null }));
        batchMs.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, committer));
    const seconds = (performance.now() - started) / 1000;
    const events = BATCHES * BATCH;
    const self = process.cpuUsage(cpu0.self);
    const perEvent = (cpuS: number) => ((cpuS * 1000) / events).toFixed(2);
    batchMs.sort((a, b) => a - b);
    console.log(`RESULT events_per_s=${(events / seconds).toFixed(0)} batch_p50_ms=${batchMs[batchMs.length >> 1].toFixed(0)} ` +
      `cpu_ms_per_event: pipeline=${perEvent((self.user + self.system) / 1e6)} ferretdb=${perEvent(cpuSeconds(ferret.pid) - cpu0.ferret)} postgresql=${perEvent(postgresCpuSeconds(pgData) - cpu0.pg)}`);
    const driverCalls = [...calls.values()].reduce((sum, c) => sum + c.n, 0);
    console.log(`driver calls per event: ${(driverCalls / events).toFixed(2)} (per batch ${(driverCalls / BATCHES).toFixed(1)}); ` +
      `PostgreSQL commits per event: ${((ferret.postgres!.commits() - pg0.commits) / events).toFixed(2)}, WAL flushes per event: ${((ferret.postgres!.walSyncs() - pg0.syncs) / events).toFixed(2)}; ` +
      `problem keys per batch: ${(matched.keys / BATCHES).toFixed(1)} on ${(matched.hosts / BATCHES).toFixed(1)} hosts (${matched.calls} calls)`);
    console.log('driver calls: collection.operation   per batch   mean ms   documents per call');
    for (const [key, c] of [...calls].sort((a, b) => b[1].n * b[1].ms - a[1].n * a[1].ms)) {
      console.log(`  ${key.padEnd(32)} ${(c.n / BATCHES).toFixed(1).padStart(9)} ${(c.ms / c.n).toFixed(1).padStart(9)} ${(c.docs / c.n).toFixed(1).padStart(9)}`);
    }
  } finally {
    await store.close();
    await ferret.stop();
  }
}

await main();
