/* eslint-disable no-console -- a benchmark prints its figures */
import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startFerretDb } from '../ferretdb.js';
import { LoadGenerator, type PhaseResult } from './lib/loadgen-client.js';
import { buildDaemon, machineLine, ROOT, sampleProcess, startDaemon, tempDir } from './lib/proc.js';
import { checkStored, type StoreTarget } from './lib/stored-ids.js';

/**
 * `npm run bench:ingest [-- --store=mongodb]`: SAC (built daemon, child process) against a bare
 * node:http + zod server, same load generator, same connections, unique realistic events.
 * Phases: warm-up, bare peak, SAC peak, duplicate re-sends, SAC and bare at a fixed 80 % of SAC's
 * peak, SAC offered twice its peak (overload); then SAC is stopped and every event answered 201
 * is looked up in the store.
 * Env: BENCH_SECONDS (per phase, default 20), BENCH_CONNECTIONS (default 256; 16 on MongoDB),
 * BENCH_QUEUE_LIMIT (SAC_INGEST_QUEUE_LIMIT of the daemon under test, default 512 — 32 on
 * MongoDB: above the peak phases' connections, below the overload phase's, so overload is
 * answered with 503s). MongoDB's defaults are small because FerretDB manages tens of events/s:
 * 256 connections would leave the store working through abandoned requests long after the run.
 */
const storeKind = process.argv.includes('--store=mongodb') ? 'mongodb' : 'sqlite';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? (storeKind === 'mongodb' ? 16 : 256));
const QUEUE_LIMIT = process.env.BENCH_QUEUE_LIMIT ?? (storeKind === 'mongodb' ? '32' : '512');
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

async function main(): Promise<void> {
  console.log(`bench:ingest — store ${storeKind}, ${CONNECTIONS} connections, ${SECONDS} s per phase, SAC queue limit ${QUEUE_LIMIT}`);
  console.log(machineLine());
  buildDaemon();

  const ferret = storeKind === 'mongodb' ? await startFerretDb({ logLevel: 'error' }) : null;
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

    const ratio = sacRun.rps / bareRun.rps;
    const errors = errorsOf(sacRun, [201]);
    console.log(
      `RESULT store=${storeKind} sac_eps=${fmt(sacRun.rps, 0)} bare_eps=${fmt(bareRun.rps, 0)} ratio=${fmt(ratio, 2)} ` +
        `p50_ms=${fmt(sacRun.p50_ms, 2)} p99_ms=${fmt(sacRun.p99_ms, 2)} p999_ms=${fmt(sacRun.p999_ms, 2)} errors=${errors} ` +
        `rss_mb=${fmt(sacProc.peakRssMiB, 0)} cpu_pct=${fmt(sacProc.cpuPercent, 0)} ` +
        `dup_eps=${fmt(dupRun.rps, 0)} dup_errors=${errorsOf(dupRun, [409])} ` +
        `fixed_rate=${rate} fixed_p50_ms=${fmt(fixedRun.p50_ms, 2)} fixed_p99_ms=${fmt(fixedRun.p99_ms, 2)} ` +
        `fixed_p999_ms=${fmt(fixedRun.p999_ms, 2)} fixed_errors=${errorsOf(fixedRun, [201])} ` +
        `bare_fixed_p99_ms=${fmt(bareFixed.p99_ms, 2)} ` +
        `over_rate=${overRate} over_eps=${fmt((overRun.statuses[201] ?? 0) / overRun.seconds, 0)} over_503=${overRun.statuses[503] ?? 0} ` +
        `over_503_p99_ms=${fmt(overRun.refused_p99_ms, 2)} over_errors=${errorsOf(overRun, [201, 503]) + overRun.missingRetryAfter} ` +
        `acked=${created.length} missing=${stored.missing} repeated=${stored.repeated}`,
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
