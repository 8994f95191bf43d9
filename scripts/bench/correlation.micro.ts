/* eslint-disable no-console -- a benchmark prints its figures */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseEvent } from '../../shared/src/index.js';
import { CorrelationService, DEFAULT_CROSS_HOST_RULES, type CorrelationSettings } from '../../daemon/src/correlation/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { openStore, type CommittedEvent, type NewEvent } from '../../daemon/src/store/index.js';
import { createEventFactory } from './lib/event-factory.js';
import { machineLine, tempDir } from './lib/proc.js';

/**
 * `npx tsx scripts/bench/correlation.micro.ts`: the ingest commit path without HTTP — the bench's
 * event mix stored in batches on a fresh SQLite store, each batch's correlation listener run inside
 * its commit as ingest does. Prints per-batch insert and listener times (the event-loop
 * stall each causes) and the listener's CPU time, early against late batches to show growth with the tables.
 * Env: BENCH_BATCHES (default 400), BENCH_BATCH (events per batch, default 256).
 */
const BATCHES = Number(process.env.BENCH_BATCHES ?? 400);
const BATCH = Number(process.env.BENCH_BATCH ?? 256);

const settings: CorrelationSettings = {
  windowMinutes: 30,
  severityOverrides: {},
  hiddenTypes: [],
  staleMinutes: 10,
  staleMinutesByProduct: {},
  silenceCooldownMinutes: 720,
  crossHost: DEFAULT_CROSS_HOST_RULES,
  typeProblems: {},
  adminUsers: new Set(),
};

function pct(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

const summary = (label: string, ms: number[]) =>
  `${label} mean ${(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(2)} ms  p50 ${pct(ms, 50).toFixed(2)}  p99 ${pct(ms, 99).toFixed(2)}  max ${Math.max(...ms).toFixed(2)}`;

async function main(): Promise<void> {
  console.log(`correlation micro-benchmark — ${BATCHES} batches of ${BATCH} events`);
  console.log(machineLine());
  const dir = tempDir('sac-bench-correlation-');
  const store = await openStore({ kind: 'sqlite', file: path.join(dir, 'sac.db') });
  const correlation = new CorrelationService(store);
  const factory = createEventFactory();
  const insertMs: number[] = [];
  const listenerMs: number[] = [];
  /** The whole batch: insert, listener, commit and sync. */
  const commitMs: number[] = [];
  /** CPU time of the listener (this process's threads): robust against other load on the machine. */
  const listenerCpuMs: number[] = [];
  const started = performance.now();
  try {
    for (let b = 0; b < BATCHES; b++) {
      const items: NewEvent[] = [];
      for (let i = 0; i < BATCH; i++) {
        const parsed = parseEvent(JSON.parse(factory.next().body));
        if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
        const event = parsed.event;
        const now = Date.now();
        items.push({ event, host: hostObservation(event, now), occurred_ms: Date.parse(event.occurred_at), received_ms: now, actor_user: actorUser(event), agent_version: event.source.product_version });
      }
      const t = performance.now();
      let listenerStart = 0;
      let cpu = process.cpuUsage();
      // As ingest does: the listener runs inside the batch's commit.
      await store.events.insertBatch(items, async (outcomes) => {
        listenerStart = performance.now();
        insertMs.push(listenerStart - t);
        cpu = process.cpuUsage();
        const committed: CommittedEvent[] = items.map((item, i) => {
          const o = outcomes[i];
          if (o.status !== 'inserted') throw new Error('duplicate in a fresh store');
          return { ...item, host_id: o.host_id };
        });
        await correlation.onCommitted(committed, settings, Date.now());
        listenerMs.push(performance.now() - listenerStart);
        const used = process.cpuUsage(cpu);
        listenerCpuMs.push((used.user + used.system) / 1000);
      });
      commitMs.push(performance.now() - t);
    }
    const seconds = (performance.now() - started) / 1000;
    const fifth = Math.max(1, Math.floor(BATCHES / 5));
    console.log(summary('insert batch   ', insertMs));
    console.log(summary('whole commit   ', commitMs));
    console.log(summary('listener, all  ', listenerMs));
    console.log(summary('listener CPU   ', listenerCpuMs));
    console.log(summary('listener, first', listenerMs.slice(0, fifth)));
    console.log(summary('listener, last ', listenerMs.slice(-fifth)));
    console.log(`RESULT events_per_s=${((BATCHES * BATCH) / seconds).toFixed(0)} listener_mean_ms=${(listenerMs.reduce((a, b) => a + b, 0) / BATCHES).toFixed(2)} ` +
      `listener_p99_ms=${pct(listenerMs, 99).toFixed(2)} listener_cpu_mean_ms=${(listenerCpuMs.reduce((a, b) => a + b, 0) / BATCHES).toFixed(2)} listener_first_p50_ms=${pct(listenerMs.slice(0, fifth), 50).toFixed(2)} ` +
      `listener_last_p50_ms=${pct(listenerMs.slice(-fifth), 50).toFixed(2)}`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
