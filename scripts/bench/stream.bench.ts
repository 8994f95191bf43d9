/* eslint-disable no-console -- a benchmark prints its figures */
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { login } from './lib/http.js';
import { LoadGenerator, StreamClients, type SseStats } from './lib/loadgen-client.js';
import { buildDaemon, machineLine, rssMiB, sampleProcess, startDaemon, tempDir } from './lib/proc.js';

/**
 * `npm run bench:stream`: stream clients on `GET /api/v1/stream/events` while events are ingested.
 * Phase 1: 1,000 clients during peak ingest (closed loop) — SAC's RSS and CPU, ingest rate and
 * event-to-client latency. Phase 2: BENCH_STREAM_CLIENTS (default 5,000) clients while ingesting at
 * BENCH_STREAM_RATE events/s (default 500) — event-to-client p50/p99, SAC CPU and RSS. Latency runs
 * from the moment the load generator stamped the event (`occurred_at`) to its arrival at a probe
 * client. Also the RSS an idle stream client adds (measured while phase 1's clients connect).
 * BENCH_SECONDS: length of each phase (default 20).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const MANY = Number(process.env.BENCH_STREAM_CLIENTS ?? 5000);
const RATE = Number(process.env.BENCH_STREAM_RATE ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 256);
const PROBES = 40;

function describe(s: SseStats): string {
  return `event-to-client p50 ${s.p50_ms.toFixed(0)} ms  p99 ${s.p99_ms.toFixed(0)} ms  max ${s.max_ms.toFixed(0)} ms ` +
    `(${s.frames} frames at ${PROBES} probes, ${(s.bytes / 2 ** 20).toFixed(0)} MiB to all clients, ${s.closed} dropped)`;
}

async function main(): Promise<void> {
  console.log(`bench:stream — 1,000 clients at peak ingest, then ${MANY.toLocaleString('en')} clients at ${RATE} events/s, ${SECONDS} s each`);
  console.log(machineLine());
  buildDaemon();
  const dataDir = tempDir('sac-bench-stream-');
  const apiKey = `sac_${randomBytes(24).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  // One admin opens every stream here: lift the per-user and total caps above the client count.
  const sac = await startDaemon({
    SAC_DATA_DIR: dataDir, SAC_BOOTSTRAP_API_KEY: apiKey, SAC_ADMIN_PASSWORD: password, SAC_LOG_LEVEL: 'warn',
    SAC_STREAM_MAX_CLIENTS: String(MANY + 100), SAC_STREAM_MAX_PER_USER: String(MANY + 100),
  });
  const gen = new LoadGenerator();
  const streams = new StreamClients();
  try {
    const token = await login(sac.url, 'admin', password);
    const common = { url: sac.url, apiKey, connections: CONNECTIONS, mode: 'fresh' as const };
    await gen.run({ ...common, seconds: 2 });

    const rssBefore = rssMiB(sac.child.pid!);
    const opened1 = await streams.send<{ open: number; failed: number }>({ cmd: 'open', url: sac.url, token, clients: 1000, probes: PROBES });
    const kibPerClient = opened1.open > 0 ? ((rssMiB(sac.child.pid!) - rssBefore) * 1024) / opened1.open : 0;
    console.log(`phase 1: ${opened1.open} stream clients open (${opened1.failed} refused), about ${kibPerClient.toFixed(1)} KiB of RSS each`);
    await streams.send({ cmd: 'reset' });
    const s1 = sampleProcess(sac.child.pid!);
    const peak = await gen.run({ ...common, seconds: SECONDS });
    const p1 = s1.stop();
    const st1 = await streams.send<SseStats>({ cmd: 'stats' });
    console.log(`1,000 clients, peak ingest ${peak.rps.toFixed(0)} events/s (errors ${peak.socketErrors + peak.requests - (peak.statuses[201] ?? 0)}): ` +
      `SAC RSS peak ${p1.peakRssMiB.toFixed(0)} MiB, CPU ${p1.cpuPercent.toFixed(0)} %`);
    console.log(`  ${describe(st1)}`);

    const opened2 = await streams.send<{ open: number; failed: number }>({
      cmd: 'open', url: sac.url, token, clients: MANY - opened1.open, probes: PROBES,
    });
    const open2 = opened1.open + opened2.open;
    console.log(`phase 2: ${open2} stream clients open (${opened2.failed} refused)`);
    await streams.send({ cmd: 'reset' });
    const s2 = sampleProcess(sac.child.pid!);
    const fixed = await gen.run({ ...common, seconds: SECONDS, rate: RATE });
    const p2 = s2.stop();
    const st2 = await streams.send<SseStats>({ cmd: 'stats' });
    console.log(`${open2.toLocaleString('en')} clients, ingest ${fixed.rps.toFixed(0)} events/s (p99 ${fixed.p99_ms.toFixed(1)} ms): ` +
      `SAC RSS peak ${p2.peakRssMiB.toFixed(0)} MiB, CPU ${p2.cpuPercent.toFixed(0)} %`);
    console.log(`  ${describe(st2)}`);
    console.log(
      `RESULT clients_1=${opened1.open} peak_eps=${peak.rps.toFixed(0)} rss_mb_1=${p1.peakRssMiB.toFixed(0)} cpu_pct_1=${p1.cpuPercent.toFixed(0)} ` +
        `e2c_p99_ms_1=${st1.p99_ms.toFixed(0)} clients_2=${open2} rate_2=${fixed.rps.toFixed(0)} rss_mb_2=${p2.peakRssMiB.toFixed(0)} ` +
        `cpu_pct_2=${p2.cpuPercent.toFixed(0)} e2c_p50_ms_2=${st2.p50_ms.toFixed(0)} e2c_p99_ms_2=${st2.p99_ms.toFixed(0)} dropped=${st2.closed} ` +
        `kib_per_client=${kibPerClient.toFixed(1)}`,
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
