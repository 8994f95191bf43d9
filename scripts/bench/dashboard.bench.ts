/* eslint-disable no-console -- a benchmark prints its figures */
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { foldRollups } from '../../daemon/src/store/rollup-fold.js';
import { createEventFactory } from './lib/event-factory.js';
import { ingestEvents, login, percentile } from './lib/http.js';
import { buildDaemon, machineLine, startDaemon, tempDir, type DaemonProcess } from './lib/proc.js';

/**
 * `npm run bench:dashboard`: `GET /api/v1/dashboards/summary` p50/p95 with a small and a large
 * embedded store. Hosts come in through the real ingest API; the events themselves are bulk-
 * written straight into the SQLite file (with their hourly rollups, as ingest maintains them),
 * spread over the last 30 days, while the daemon is stopped. The large fill stops at
 * BENCH_DASHBOARD_LARGE (default 10,000,000) events or after BENCH_FILL_SECONDS (default 600),
 * whichever comes first, and prints the size it reached. BENCH_SECONDS: measuring time per size.
 */
const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_DASHBOARD_LARGE ?? 10_000_000);
const FILL_SECONDS = Number(process.env.BENCH_FILL_SECONDS ?? 600);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SPREAD_MS = 30 * 24 * 3_600_000;
const CHUNK = 50_000;

/** Appends events to the stopped daemon's SQLite file until `target` rows or `deadline`; returns the row count. */
function fill(dataDir: string, target: number, deadline: number): number {
  const db = new Database(path.join(dataDir, 'sac.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -524288');
  const hostIds = new Map((db.prepare('SELECT id, key FROM hosts').all() as { id: string; key: string }[]).map((h) => [h.key, h.id]));
  const insert = db.prepare(`INSERT INTO events (event_id, host_id, type, severity, occurred_ms, received_ms, actor_user,
    agent_version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  // Ingest writes each event's free-text index row with it (events.sqlite.ts); so does the fill.
  const indexText = db.prepare(`INSERT INTO events_fts (rowid, title, summary)
    VALUES (@rowid, json_extract(@doc, '$.title'), coalesce(json_extract(@doc, '$.summary'), ''))`);
  const rollup = db.prepare(`INSERT INTO rollups (bucket_ms, dim, key, severity, n) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (bucket_ms, dim, key, severity) DO UPDATE SET n = n + excluded.n`);
  let count = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  // Ordered ids (a per-run prefix and a counter, UUID-shaped): the unique index appends instead of
  // splitting pages at random, which is what makes a fill of millions fit in minutes.
  const prefix = randomBytes(8).toString('hex');
  let seq = count;
  const factory = createEventFactory({
    eventId: () => {
      const c = (seq++).toString(16).padStart(16, '0');
      return `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-4${prefix.slice(13, 16)}-8${c.slice(1, 4)}-${c.slice(4)}`;
    },
  });
  const now = Date.now();
  const writeChunk = db.transaction((n: number) => {
    const folded: { occurred_ms: number; type: string; severity: 'info' | 'warning' | 'high' | 'critical'; host_id: string }[] = [];
    for (let i = 0; i < n; i++) {
      const e = factory.next();
      const hostId = hostIds.get(e.hostKey);
      if (!hostId) throw new Error(`host ${e.hostKey} was not created by the ingest warm-up`);
      const occurred = now - Math.floor(Math.random() * SPREAD_MS);
      const { lastInsertRowid } = insert.run(e.eventId, hostId, e.type, e.severity, occurred, occurred + 50, 'administrator', e.agentVersion, e.body);
      indexText.run({ rowid: lastInsertRowid, doc: e.body });
      folded.push({ occurred_ms: occurred, type: e.type, severity: e.severity, host_id: hostId });
    }
    for (const r of foldRollups(folded, () => true)) rollup.run(r.bucket_ms, r.dim, r.key, r.severity, r.n);
  });
  const started = Date.now();
  while (count < target && Date.now() < deadline) {
    const n = Math.min(CHUNK, target - count);
    writeChunk(n);
    count += n;
    if (count % 1_000_000 < CHUNK) console.log(`  filled ${count.toLocaleString('en')} events (${Math.round(count / ((Date.now() - started) / 1000 || 1))}/s)`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return count;
}

async function measure(sac: DaemonProcess, token: string): Promise<{ p50: number; p95: number; n: number; bytes: number }> {
  const get = async () => {
    const t0 = performance.now();
    const res = await fetch(`${sac.url}/api/v1/dashboards/summary`, { headers: { Authorization: `Bearer ${token}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`summary answered ${res.status}: ${text.slice(0, 200)}`);
    return { ms: performance.now() - t0, bytes: text.length };
  };
  for (let i = 0; i < 5; i++) await get();
  const times: number[] = [];
  let bytes = 0;
  const end = performance.now() + SECONDS * 1000;
  while (performance.now() < end || times.length < 30) {
    const r = await get();
    times.push(r.ms);
    bytes = r.bytes;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length, bytes };
}

async function main(): Promise<void> {
  console.log(`bench:dashboard — summary p50/p95 at ${SMALL.toLocaleString('en')} and up to ${LARGE.toLocaleString('en')} events ` +
    `(fill budget ${FILL_SECONDS} s), ${SECONDS} s of sequential requests per size`);
  console.log(machineLine());
  buildDaemon();
  const dataDir = tempDir('sac-bench-dashboard-');
  const apiKey = `sac_${randomBytes(24).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  const env = { SAC_DATA_DIR: dataDir, SAC_BOOTSTRAP_API_KEY: apiKey, SAC_ADMIN_PASSWORD: password, SAC_LOG_LEVEL: 'warn' };

  const run = async (label: string) => {
    const sac = await startDaemon(env);
    try {
      const token = await login(sac.url, 'admin', password);
      const m = await measure(sac, token);
      console.log(`${label.padEnd(28)} p50 ${m.p50.toFixed(2)} ms  p95 ${m.p95.toFixed(2)} ms  (${m.n} requests, ${m.bytes} bytes)`);
      return m;
    } finally {
      sac.child.kill('SIGTERM');
      await sac.exited;
    }
  };

  // Every host of the factory, created through the real ingest path (1,200 events).
  const first = await startDaemon(env);
  await ingestEvents(first.url, apiKey, 1200);
  first.child.kill('SIGTERM');
  await first.exited;

  const small = fill(dataDir, SMALL, Number.POSITIVE_INFINITY);
  const smallM = await run(`${small.toLocaleString('en')} events`);
  const fillStart = Date.now();
  const large = fill(dataDir, LARGE, fillStart + FILL_SECONDS * 1000);
  const fillSeconds = (Date.now() - fillStart) / 1000;
  console.log(`large fill: ${large.toLocaleString('en')} events in ${fillSeconds.toFixed(0)} s` +
    (large < LARGE ? ` — stopped by the ${FILL_SECONDS} s budget before ${LARGE.toLocaleString('en')}` : ''));
  const largeM = await run(`${large.toLocaleString('en')} events`);
  rmSync(dataDir, { recursive: true, force: true }); // gigabytes at 10M events
  const ratio = largeM.p95 / smallM.p95;
  console.log(
    `RESULT small_events=${small} large_events=${large} small_p50_ms=${smallM.p50.toFixed(2)} small_p95_ms=${smallM.p95.toFixed(2)} ` +
      `large_p50_ms=${largeM.p50.toFixed(2)} large_p95_ms=${largeM.p95.toFixed(2)} ratio_p95=${ratio.toFixed(2)} fill_s=${fillSeconds.toFixed(0)}`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
