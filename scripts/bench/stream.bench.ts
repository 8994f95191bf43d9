/* eslint-disable no-console -- a benchmark prints its figures */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { login } from './lib/http.js';
import { LoadGenerator, StreamClients, type SseStats } from './lib/loadgen-client.js';
import { buildDaemon, machineLine, ROOT, sampleProcess, startDaemon, tempDir } from './lib/proc.js';

/**
 * `npm run bench:stream`: stream clients on `GET /api/v1/stream/events` while events are ingested.
 * Phase 1: 1,000 clients during peak ingest (closed loop) — SAC's RSS and CPU, ingest rate and
 * event-to-client latency. Phase 2: BENCH_STREAM_CLIENTS (default 5,000) clients while ingesting at
 * BENCH_STREAM_RATE events/s (default 500) — event-to-client p50/p99, SAC CPU and RSS. Latency runs
 * from the moment the load generator stamped the event (`occurred_at`) to its arrival at a probe
 * client. Also what an idle stream client costs (heap and RSS after a full garbage collection,
 * before and after phase 1's clients connect), what holds the memory at phase 1's peak (every
 * thread's V8 heap, Buffers, the rest — from lib/memory-probe.mjs preloaded into the daemon), and
 * the daemon's CPU per event per 1,000 clients (phase 2 against BENCH_STREAM_RATE with no clients).
 * BENCH_SECONDS: length of each phase (default 20); BENCH_SAC_NODE_ARGS: more Node flags for the daemon.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const MANY = Number(process.env.BENCH_STREAM_CLIENTS ?? 5000);
const RATE = Number(process.env.BENCH_STREAM_RATE ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 256);
const PROBES = 40;
const MEMORY_PROBE = path.join(ROOT, 'scripts/bench/lib/memory-probe.mjs');

/** One thread's line of lib/memory-probe.mjs (figures in MiB; the highest of the window unless `after_gc`). */
interface ThreadMemory {
  thread: string;
  heap_physical_mib: number;
  heap_used_mib: number;
  malloced_mib: number;
  rss_mib?: number;
  external_mib?: number;
  array_buffers_mib?: number;
  heap_used_after_gc_mib?: number;
  rss_after_gc_mib?: number;
  gc_major: number;
  gc_minor: number;
  gc_ms: number;
}

/**
 * Asks the daemon's memory probe for the window since the last ask (SIGUSR2) and reads every
 * thread's line: the main thread's comes at once, the workers' when their loops get to it.
 */
async function probeMemory(pid: number, file: string): Promise<ThreadMemory[]> {
  const read = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  const before = read().length;
  process.kill(pid, 'SIGUSR2');
  let lines = read().slice(before);
  for (let quiet = 0; quiet < 10 || !lines.some((l) => l.includes('"main"')); ) {
    await sleep(50);
    const now = read().slice(before);
    quiet = now.length === lines.length ? quiet + 1 : 0;
    lines = now;
  }
  return lines.map((l) => JSON.parse(l) as ThreadMemory);
}

/**
 * Where the RSS is: mapped from files (the node binary's code, libraries), each thread's V8 heap
 * (physical; in use; in use after a full collection), the rest (native: Buffers' touched pages,
 * SQLite, libuv, malloc). `external` is what V8 counts outside its heaps, Buffers included; it is
 * not all resident (bson reserves 17 MiB it never touches on SQLite), so it is shown, not summed.
 */
function breakdown(rss: number, fileRss: number, threads: ThreadMemory[]): string {
  const main = threads.find((t) => t.thread === 'main')!;
  const heaps = threads.reduce((sum, t) => sum + t.heap_physical_mib, 0);
  const heapsText = threads
    .map((t) => `${t.thread} heap ${t.heap_physical_mib.toFixed(0)} (used ${t.heap_used_mib.toFixed(0)}, live ${t.heap_used_after_gc_mib?.toFixed(0) ?? '?'})`)
    .join(' + ');
  const gcText = threads.map((t) => `${t.thread} ${t.gc_major} full + ${t.gc_minor} young, ${t.gc_ms} ms`).join('; ');
  return `RSS ${rss.toFixed(0)} MiB = file-mapped ${fileRss.toFixed(0)} + ${heapsText} + rest ${(rss - fileRss - heaps).toFixed(0)}; ` +
    `external ${(main.external_mib ?? 0).toFixed(0)} (Buffers ${(main.array_buffers_mib ?? 0).toFixed(0)}) — each its own highest in the window; ` +
    `collections: ${gcText}`;
}

function describe(s: SseStats): string {
  return `event-to-client p50 ${s.p50_ms.toFixed(0)} ms  p99 ${s.p99_ms.toFixed(0)} ms  max ${s.max_ms.toFixed(0)} ms ` +
    `(${s.frames} frames at ${PROBES} probes, ${(s.bytes / 2 ** 20).toFixed(0)} MiB to all clients, ${s.closed} dropped)`;
}

async function main(): Promise<void> {
  console.log(`bench:stream — 1,000 clients at peak ingest, then ${MANY.toLocaleString('en')} clients at ${RATE} events/s, ${SECONDS} s each`);
  console.log(machineLine());
  buildDaemon();
  const dataDir = tempDir('sac-bench-stream-');
  const probeFile = path.join(dataDir, 'memory-probe.jsonl');
  const apiKey = `sac_${randomBytes(24).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  // One admin opens every stream here: lift the per-user and total caps above the client count.
  const sac = await startDaemon({
    SAC_DATA_DIR: dataDir, SAC_BOOTSTRAP_API_KEY: apiKey, SAC_ADMIN_PASSWORD: password, SAC_LOG_LEVEL: 'warn',
    SAC_STREAM_MAX_CLIENTS: String(MANY + 100), SAC_STREAM_MAX_PER_USER: String(MANY + 100), MEMORY_PROBE_FILE: probeFile,
  }, { execArgv: ['--expose-gc', '--import', MEMORY_PROBE, ...(process.env.BENCH_SAC_NODE_ARGS?.split(' ').filter(Boolean) ?? [])] });
  const pid = sac.child.pid!;
  const gen = new LoadGenerator();
  const streams = new StreamClients();
  try {
    const token = await login(sac.url, 'admin', password);
    const common = { url: sac.url, apiKey, connections: CONNECTIONS, mode: 'fresh' as const };
    await gen.run({ ...common, seconds: 2 });
    const s0 = sampleProcess(pid);
    const quiet = await gen.run({ ...common, seconds: SECONDS, rate: RATE });
    const p0 = s0.stop();
    console.log(`no clients, ingest ${quiet.rps.toFixed(0)} events/s: SAC CPU ${p0.cpuPercent.toFixed(0)} %`);

    const idleRss = sampleProcess(pid).stop();
    const idleThreads = await probeMemory(pid, probeFile);
    const idle = idleThreads.find((t) => t.thread === 'main')!;
    console.log(`  after ${RATE} events/s without clients: ${breakdown(idleRss.peakRssMiB, idleRss.peakFileRssMiB, idleThreads)}`);
    const opened1 = await streams.send<{ open: number; failed: number }>({ cmd: 'open', url: sac.url, token, clients: 1000, probes: PROBES });
    const withClients = (await probeMemory(pid, probeFile)).find((t) => t.thread === 'main')!;
    const perClient = (a?: number, b?: number) => (opened1.open > 0 ? (((b ?? 0) - (a ?? 0)) * 1024) / opened1.open : 0);
    const kibHeap = perClient(idle.heap_used_after_gc_mib, withClients.heap_used_after_gc_mib);
    const kibPerClient = perClient(idle.rss_after_gc_mib, withClients.rss_after_gc_mib);
    console.log(`phase 1: ${opened1.open} stream clients open (${opened1.failed} refused); each idle client: ` +
      `${kibHeap.toFixed(1)} KiB of heap, ${kibPerClient.toFixed(1)} KiB of RSS (after a full collection)`);
    await streams.send({ cmd: 'reset' });
    const s1 = sampleProcess(pid);
    const peak = await gen.run({ ...common, seconds: SECONDS });
    const p1 = s1.stop();
    const memory = await probeMemory(pid, probeFile);
    const st1 = await streams.send<SseStats>({ cmd: 'stats' });
    console.log(`1,000 clients, peak ingest ${peak.rps.toFixed(0)} events/s (errors ${peak.socketErrors + peak.requests - (peak.statuses[201] ?? 0)}): ` +
      `SAC RSS peak ${p1.peakRssMiB.toFixed(0)} MiB, CPU ${p1.cpuPercent.toFixed(0)} %`);
    console.log(`  ${describe(st1)}`);
    console.log(`  ${breakdown(p1.peakRssMiB, p1.peakFileRssMiB, memory)}`);

    const opened2 = await streams.send<{ open: number; failed: number }>({
      cmd: 'open', url: sac.url, token, clients: MANY - opened1.open, probes: PROBES,
    });
    const open2 = opened1.open + opened2.open;
    console.log(`phase 2: ${open2} stream clients open (${opened2.failed} refused)`);
    await streams.send({ cmd: 'reset' });
    const s2 = sampleProcess(pid);
    const fixed = await gen.run({ ...common, seconds: SECONDS, rate: RATE });
    const p2 = s2.stop();
    const st2 = await streams.send<SseStats>({ cmd: 'stats' });
    // CPU seconds per event, less the same rate's without clients, per 1,000 clients, in µs.
    const cpuPerEvent = ((p2.cpuPercent / fixed.rps - p0.cpuPercent / quiet.rps) * 1e4) / (open2 / 1000);
    console.log(`${open2.toLocaleString('en')} clients, ingest ${fixed.rps.toFixed(0)} events/s (p99 ${fixed.p99_ms.toFixed(1)} ms): ` +
      `SAC RSS peak ${p2.peakRssMiB.toFixed(0)} MiB, CPU ${p2.cpuPercent.toFixed(0)} % (${cpuPerEvent.toFixed(0)} µs per event per 1,000 clients)`);
    console.log(`  ${describe(st2)}`);
    console.log(
      `RESULT clients_1=${opened1.open} peak_eps=${peak.rps.toFixed(0)} rss_mb_1=${p1.peakRssMiB.toFixed(0)} cpu_pct_1=${p1.cpuPercent.toFixed(0)} ` +
        `e2c_p99_ms_1=${st1.p99_ms.toFixed(0)} clients_2=${open2} rate_2=${fixed.rps.toFixed(0)} rss_mb_2=${p2.peakRssMiB.toFixed(0)} ` +
        `cpu_pct_2=${p2.cpuPercent.toFixed(0)} e2c_p50_ms_2=${st2.p50_ms.toFixed(0)} e2c_p99_ms_2=${st2.p99_ms.toFixed(0)} dropped=${st2.closed} ` +
        `kib_per_client=${kibPerClient.toFixed(1)} heap_kib_per_client=${kibHeap.toFixed(1)} cpu_us_per_event_per_1000=${cpuPerEvent.toFixed(0)}`,
    );
  } finally {
    await streams.send({ cmd: 'close' }).catch(() => undefined);
    streams.close();
    gen.close();
    sac.child.kill('SIGTERM');
    await sac.exited;
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
