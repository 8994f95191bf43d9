/* eslint-disable no-console -- a benchmark prints its figures */
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startFerretDb, type FerretHandler, type RunningFerretDb } from '../ferretdb.js';
import type { RunningPostgres } from '../postgres.js';
import { LoadGenerator, type PhaseResult } from './lib/loadgen-client.js';
import { buildDaemon, machineLine, ROOT, sampleMachine, sampleProcess, startDaemon, tempDir } from './lib/proc.js';
import { measureEnrichment } from './lib/geo-cost.js';
import { checkStored, type StoreTarget } from './lib/stored-ids.js';

/**
 * `npm run bench:ingest [-- --store=mongodb]`: SAC (built daemon, child process) against a bare
 * node:http + zod server, same load generator, same connections, unique realistic events.
 * Phases: warm-up, bare peak, SAC peak, duplicate re-sends, SAC and bare at a fixed 80 % of SAC's
 * peak, SAC offered twice its peak (overload); then SAC is stopped and every event answered 201
 * is looked up in the store.
 * Env: BENCH_SECONDS (per phase, default 20), BENCH_CONNECTIONS (default 256), BENCH_QUEUE_LIMIT
 * (SAC_INGEST_QUEUE_LIMIT of the daemon under test, default 512: above the peak phases'
 * connections, below the overload phase's, so overload is answered with 503s). On MongoDB the
 * connections are what lets a group commit grow: its cost is mostly per batch, not per event.
 * MongoDB runs on FerretDB's PostgreSQL backend (`--ferretdb=sqlite` for its SQLite handler).
 * `--daemons=1,2` (MongoDB only): for each count N in turn, N daemons on a fresh database of one
 * FerretDB, one load generator per daemon with the connections split between them; only the peak
 * phase and the durability check run, one RESULT line per count (ratios within one run).
 */
const storeKind = process.argv.includes('--store=mongodb') ? 'mongodb' : 'sqlite';
const FERRET_HANDLER: FerretHandler = process.argv.includes('--ferretdb=sqlite') ? 'sqlite' : 'postgresql';
const DAEMON_COUNTS = (process.argv.find((a) => a.startsWith('--daemons='))?.slice('--daemons='.length).split(',') ?? [])
  .map(Number)
  .filter((n) => Number.isInteger(n) && n >= 1);
/**
 * `--affinity` (with `--daemons`): each load generator sends the events of its own share of the
 * hosts, as a load balancer that keeps each agent on one daemon does (nginx `hash $remote_addr`);
 * without it every generator sends every host's events.
 */
const AFFINITY = process.argv.includes('--affinity');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 256);
const QUEUE_LIMIT = process.env.BENCH_QUEUE_LIMIT ?? '512';
/** How long SAC may drain its queue after SIGTERM before it is killed. */
const STOP_WAIT_MS = 30_000;

function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

function errorsOf(r: PhaseResult, ok: number[]): number {
  let n = r.socketErrors;
  for (const [status, count] of Object.entries(r.statuses)) if (!ok.includes(Number(status))) n += count;
  return n;
}

function line(label: string, r: PhaseResult, ok: number[]): string {
  return `${label.padEnd(22)} ${fmt(r.rps, 0).padStart(7)} req/s  p50 ${fmt(r.p50_ms, 2)} ms  p99 ${fmt(r.p99_ms, 2)} ms  ` +
    `p99.9 ${fmt(r.p999_ms, 2)} ms  max ${fmt(r.max_ms, 1)} ms  errors ${errorsOf(r, ok)}  statuses ${JSON.stringify(r.statuses)}`;
}

async function startBare(): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench/bare-server.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** One phase's results of several generators run side by side: counts add up, latencies are the worst generator's. */
function merged(results: PhaseResult[]): PhaseResult {
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  const max = (f: (r: PhaseResult) => number) => Math.max(...results.map(f));
  return {
    requests: results.reduce((a, r) => a + r.requests, 0),
    seconds: max((r) => r.seconds),
    rps: results.reduce((a, r) => a + r.rps, 0),
    statuses,
    socketErrors: results.reduce((a, r) => a + r.socketErrors, 0),
    p50_ms: max((r) => r.p50_ms),
    p99_ms: max((r) => r.p99_ms),
    p999_ms: max((r) => r.p999_ms),
    max_ms: max((r) => r.max_ms),
    missingRetryAfter: results.reduce((a, r) => a + r.missingRetryAfter, 0),
    refused_p50_ms: max((r) => r.refused_p50_ms),
    refused_p99_ms: max((r) => r.refused_p99_ms),
    created: results.flatMap((r) => r.created),
  };
}

/**
 * The round's rows written per collection, per event stored (the database is fresh each round, so
 * its counters are the whole round's: warm-up, peak and the drain after it).
 */
async function printTableWrites(pg: RunningPostgres, dbName: string): Promise<void> {
  // Idle backends report their counters within PostgreSQL's 10 s idle interval.
  await new Promise((r) => setTimeout(r, 11_000));
  const tables = pg.tableWrites(dbName);
  const events = Math.max(1, tables.get('events')?.ins ?? 0);
  const rows = [...tables].filter(([, w]) => w.ins + w.upd + w.del > 0).sort(([a], [b]) => a.localeCompare(b));
  console.log(`rows written per event stored (${events} events): collection  inserted  updated  deleted`);
  for (const [name, w] of rows) console.log(`  ${name.padEnd(20)} ${fmt(w.ins / events, 3).padStart(7)} ${fmt(w.upd / events, 3).padStart(7)} ${fmt(w.del / events, 3).padStart(7)}`);
}

/** `--daemons=1,2`: per count, that many daemons on one FerretDB database, load spread over them. */
async function multiDaemon(): Promise<void> {
  console.log(`bench:ingest — store mongodb (FerretDB ${FERRET_HANDLER}), daemons ${DAEMON_COUNTS.join(' then ')}${AFFINITY ? ', hosts split between them' : ''}, ${CONNECTIONS} connections in all, ${SECONDS} s peak, SAC queue limit ${QUEUE_LIMIT}`);
  console.log(machineLine());
  buildDaemon();
  const ferret = await startFerretDb({ logLevel: 'error', handler: FERRET_HANDLER });
  try {
    for (const n of DAEMON_COUNTS) await daemonsRound(ferret, n);
  } finally {
    await ferret.stop();
  }
}

async function daemonsRound(ferret: RunningFerretDb, count: number): Promise<void> {
  const uri = ferret.uri;
  console.log(`— ${count} daemon(s); load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const apiKey = `sac_${randomBytes(24).toString('hex')}`;
  const dbName = `sac_bench_${randomBytes(4).toString('hex')}`;
  const target: StoreTarget = { kind: 'mongodb', uri, dbName };
  const dataDirs: string[] = [];
  const env = () => {
    const dir = tempDir('sac-bench-ingest-');
    dataDirs.push(dir);
    return {
      SAC_DATA_DIR: dir,
      SAC_BOOTSTRAP_API_KEY: apiKey,
      SAC_MASTER_KEY: 'bench-master-key-shared-by-all-daemons-0123',
      SAC_JWT_SECRET: 'bench-jwt-secret-shared-by-all-daemons-0123',
      SAC_LOG_LEVEL: process.env.SAC_LOG_LEVEL ?? 'warn',
      SAC_INGEST_QUEUE_LIMIT: QUEUE_LIMIT,
      SAC_MONGODB_URI: uri,
      SAC_MONGODB_DB: dbName,
    };
  };
  const daemons = [await startDaemon(env())];
  for (let i = 1; i < count; i++) daemons.push(await startDaemon(env()));
  const gens = daemons.map(() => new LoadGenerator());
  const per = Math.max(1, Math.round(CONNECTIONS / count));
  const created: string[] = [];
  try {
    const warm = Math.max(1, Math.min(3, SECONDS / 5));
    const spread = async (seconds: number) =>
      merged(
        await Promise.all(
          daemons.map((d, i) =>
            gens[i].run({ apiKey, connections: per, mode: 'fresh', url: d.url, seconds, recordCreated: true, ...(AFFINITY ? { hostShare: { index: i, of: count } } : {}) }),
          ),
        ),
      );
    created.push(...(await spread(warm)).created);
    const samplers = daemons.map((d) => sampleProcess(d.child.pid!));
    const ferretSampler = sampleProcess(ferret.pid);
    const machineSampler = sampleMachine();
    const commitsBefore = ferret.postgres?.commits() ?? 0;
    const syncsBefore = ferret.postgres?.walSyncs() ?? 0;
    const peak = await spread(SECONDS);
    const commits = (ferret.postgres?.commits() ?? 0) - commitsBefore;
    const syncs = (ferret.postgres?.walSyncs() ?? 0) - syncsBefore;
    const procs = samplers.map((s) => s.stop());
    const ferretProc = ferretSampler.stop();
    const machine = machineSampler.stop();
    created.push(...peak.created);
    console.log(line(`SAC × ${count} (mongodb)`, peak, [201]));
    procs.forEach((p, i) => console.log(`daemon ${i + 1} during peak: RSS peak ${fmt(p.peakRssMiB)} MiB, CPU ${fmt(p.cpuPercent, 0)} %`));
    const ok = peak.statuses[201] ?? 0;
    // Where the time goes: FerretDB's own CPU, and PostgreSQL transactions (each one a WAL flush) per event stored.
    console.log(
      `FerretDB during peak: CPU ${fmt(ferretProc.cpuPercent, 0)} %; PostgreSQL: ${commits} commits, ${fmt(commits / Math.max(1, ok), 1)} per event answered 201; ` +
        `${syncs} WAL flushes, ${fmt(syncs / Math.max(1, ok), 2)} per event`,
    );
    console.log(`machine during peak: ${fmt(machine.busyPercent, 0)} % of all ${os.cpus().length} cores busy (load generators, daemons, FerretDB, PostgreSQL)`);
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const g of gens) g.close();
    daemons.forEach((d, i) => {
      if (d.child.exitCode === null && d.child.signalCode === null) return;
      // A daemon that died mid-run explains its errors: show why.
      const tail = readFileSync(d.logFile, 'utf8').split('\n').slice(-20).join('\n');
      console.log(`daemon ${i + 1} exited during the run (${d.child.signalCode ?? d.child.exitCode}); its last log lines:\n${tail}`);
    });
    for (const d of daemons) d.child.kill('SIGTERM');
    const timeout = new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS, 'timeout'));
    if ((await Promise.race([Promise.all(daemons.map((d) => d.exited)), timeout])) === 'timeout') {
      console.log(`SAC still draining after ${STOP_WAIT_MS / 1000} s: killed`);
      for (const d of daemons) d.child.kill('SIGKILL');
    }
    const stored = await checkStored(target, created);
    console.log(`durability: ${created.length} events answered 201, ${stored.missing} missing, ${stored.repeated} stored twice, ${stored.total} rows in the store`);
    if (ferret.postgres) await printTableWrites(ferret.postgres, dbName);
    console.log(
      `RESULT store=mongodb ferretdb=${FERRET_HANDLER} daemons=${count} affinity=${AFFINITY ? 'hosts' : 'none'} sac_eps=${fmt(peak.rps, 0)} ` +
        `p50_ms=${fmt(peak.p50_ms, 2)} p99_ms=${fmt(peak.p99_ms, 2)} errors=${errorsOf(peak, [201])} ` +
        `cpu_pct=${procs.map((p) => fmt(p.cpuPercent, 0)).join('+')} ferretdb_cpu_pct=${fmt(ferretProc.cpuPercent, 0)} machine_busy_pct=${fmt(machine.busyPercent, 0)} ` +
        `pg_commits_per_event=${fmt(commits / Math.max(1, ok), 1)} wal_flushes_per_event=${fmt(syncs / Math.max(1, ok), 2)} load=${os.loadavg()[0].toFixed(2)} ` +
        `acked=${created.length} missing=${stored.missing} repeated=${stored.repeated}`,
    );
  } finally {
    for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGKILL');
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (DAEMON_COUNTS.length > 0) {
    if (storeKind !== 'mongodb') throw new Error('--daemons needs --store=mongodb: a SQLite store belongs to one daemon');
    return multiDaemon();
  }
  console.log(`bench:ingest — store ${storeKind}, ${CONNECTIONS} connections, ${SECONDS} s per phase, SAC queue limit ${QUEUE_LIMIT}`);
  console.log(machineLine());
  buildDaemon();

  console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const ferret = storeKind === 'mongodb' ? await startFerretDb({ logLevel: 'error', handler: FERRET_HANDLER }) : null;
  const dataDir = tempDir('sac-bench-ingest-');
  const apiKey = `sac_${randomBytes(24).toString('hex')}`;
  const dbName = `sac_bench_${randomBytes(4).toString('hex')}`;
  const target: StoreTarget = ferret ? { kind: 'mongodb', uri: ferret.uri, dbName } : { kind: 'sqlite', dataDir };
  const sac = await startDaemon({
    SAC_DATA_DIR: dataDir,
    SAC_BOOTSTRAP_API_KEY: apiKey,
    SAC_LOG_LEVEL: process.env.SAC_LOG_LEVEL ?? 'info',
    SAC_INGEST_QUEUE_LIMIT: QUEUE_LIMIT,
    ...(process.env.SAC_INGEST_BATCH_MAX ? { SAC_INGEST_BATCH_MAX: process.env.SAC_INGEST_BATCH_MAX } : {}),
    ...(ferret ? { SAC_MONGODB_URI: ferret.uri, SAC_MONGODB_DB: dbName } : {}),
  }, { execArgv: process.env.BENCH_SAC_NODE_ARGS ? process.env.BENCH_SAC_NODE_ARGS.split(' ') : [] });
  const bare = await startBare();
  const gen = new LoadGenerator();
  const created: string[] = [];
  const common = { apiKey, connections: CONNECTIONS, mode: 'fresh' as const };
  try {
    const warm = Math.max(1, Math.min(3, SECONDS / 5));
    await gen.run({ ...common, url: bare.url, seconds: warm });
    created.push(...(await gen.run({ ...common, url: sac.url, seconds: warm, recordCreated: true })).created);

    const bareRun = await gen.run({ ...common, url: bare.url, seconds: SECONDS });
    console.log(line('bare node:http + zod', bareRun, [201]));

    const sampler = sampleProcess(sac.child.pid!);
    const sacRun = await gen.run({ ...common, url: sac.url, seconds: SECONDS, recordCreated: true });
    const sacProc = sampler.stop();
    created.push(...sacRun.created);
    console.log(line(`SAC (${storeKind})`, sacRun, [201]));
    console.log(`SAC process during peak: RSS peak ${fmt(sacProc.peakRssMiB)} MiB, CPU ${fmt(sacProc.cpuPercent, 0)} %`);

    const dupRun = await gen.run({ ...common, url: sac.url, seconds: Math.max(1, SECONDS / 2), mode: 'duplicate' });
    console.log(line('SAC duplicate re-sends', dupRun, [409]));

    const rate = Math.max(1, Math.round(sacRun.rps * 0.8));
    const fixedRun = await gen.run({ ...common, url: sac.url, seconds: SECONDS, rate, recordCreated: true });
    created.push(...fixedRun.created);
    console.log(line(`SAC fixed ${rate}/s (80 %)`, fixedRun, [201]));
    const bareFixed = await gen.run({ ...common, url: bare.url, seconds: SECONDS, rate });
    console.log(line(`bare fixed ${rate}/s`, bareFixed, [201]));

    // Overload: twice SAC's peak offered open-loop over 4× the connections; only 201 or 503 may come back.
    const overRate = Math.round(sacRun.rps * 2);
    const overRun = await gen.run({ ...common, url: sac.url, seconds: SECONDS, rate: overRate, connections: CONNECTIONS * 4, recordCreated: true });
    created.push(...overRun.created);
    console.log(line(`SAC overload ${overRate}/s`, overRun, [201, 503]));
    console.log(`overload: ${overRun.statuses[503] ?? 0} refused with 503 (p50 ${fmt(overRun.refused_p50_ms, 2)} ms, ` +
      `p99 ${fmt(overRun.refused_p99_ms, 2)} ms), ${overRun.missingRetryAfter} without Retry-After`);

    bare.stop();
    gen.close();
    // A stop drains the queue; on a slow store (FerretDB) that can take minutes, so the stop is
    // bounded — what was answered 201 is durable either way, which the check below confirms.
    sac.child.kill('SIGTERM');
    if ((await Promise.race([sac.exited, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS, 'timeout'))])) === 'timeout') {
      console.log(`SAC still draining after ${STOP_WAIT_MS / 1000} s: killed`);
      sac.child.kill('SIGKILL');
      await sac.exited;
    }
    const stored = await checkStored(target, created);
    console.log(`durability: ${created.length} events answered 201, ${stored.missing} missing, ` +
      `${stored.repeated} stored twice, ${stored.total} rows in the store`);

    // The enrichment step (before each commit, on the daemon's main thread), measured here alone
    // and set against the time SAC spent per event at its peak.
    const geo = await measureEnrichment();
    const budgetUs = 1e6 / sacRun.rps;
    console.log(
      `enrichment: ${fmt(geo.mixUs, 2)} µs/event (load mix), ${fmt(geo.missUs, 2)} µs/event (every address new) = ` +
        `${fmt((100 * geo.mixUs) / budgetUs, 2)} % / ${fmt((100 * geo.missUs) / budgetUs, 2)} % of SAC's ${fmt(budgetUs, 1)} µs per event at peak; ` +
        `shipped ASN table read in ${fmt(geo.asnLoadMs / 1000, 2)} s on its thread, RSS +${fmt(geo.asnRssMiB)} MiB`,
    );

    const ratio = sacRun.rps / bareRun.rps;
    const errors = errorsOf(sacRun, [201]);
    console.log(
      `RESULT store=${storeKind}${ferret ? ` ferretdb=${ferret.handler} daemons=1` : ''} load=${os.loadavg()[0].toFixed(2)} sac_eps=${fmt(sacRun.rps, 0)} bare_eps=${fmt(bareRun.rps, 0)} ratio=${fmt(ratio, 2)} ` +
        `p50_ms=${fmt(sacRun.p50_ms, 2)} p99_ms=${fmt(sacRun.p99_ms, 2)} p999_ms=${fmt(sacRun.p999_ms, 2)} errors=${errors} ` +
        `rss_mb=${fmt(sacProc.peakRssMiB, 0)} cpu_pct=${fmt(sacProc.cpuPercent, 0)} ` +
        `dup_eps=${fmt(dupRun.rps, 0)} dup_errors=${errorsOf(dupRun, [409])} ` +
        `fixed_rate=${rate} fixed_p50_ms=${fmt(fixedRun.p50_ms, 2)} fixed_p99_ms=${fmt(fixedRun.p99_ms, 2)} ` +
        `fixed_p999_ms=${fmt(fixedRun.p999_ms, 2)} fixed_errors=${errorsOf(fixedRun, [201])} ` +
        `bare_fixed_p99_ms=${fmt(bareFixed.p99_ms, 2)} ` +
        `over_rate=${overRate} over_eps=${fmt((overRun.statuses[201] ?? 0) / overRun.seconds, 0)} over_503=${overRun.statuses[503] ?? 0} ` +
        `over_503_p99_ms=${fmt(overRun.refused_p99_ms, 2)} over_errors=${errorsOf(overRun, [201, 503]) + overRun.missingRetryAfter} ` +
        `acked=${created.length} missing=${stored.missing} repeated=${stored.repeated} ` +
        `geo_us=${fmt(geo.mixUs, 2)} geo_miss_us=${fmt(geo.missUs, 2)} geo_pct=${fmt((100 * geo.mixUs) / budgetUs, 2)} geo_miss_pct=${fmt((100 * geo.missUs) / budgetUs, 2)}`,
    );
  } finally {
    bare.stop();
    if (sac.child.exitCode === null) sac.child.kill('SIGKILL');
    await ferret?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
