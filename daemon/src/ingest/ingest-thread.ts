import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Bus, BusMessage } from '../bus.js';
import type { Clock } from '../clock.js';
import type { CorrelationSettings } from '../correlation/index.js';
import { AppError } from '../errors.js';
import type { EventNotifyPlan } from '../notify/notify.ingest.js';
import type { InsertOutcome, NewEvent } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';

/** The settings a batch is correlated and notified with, read on the main thread (plain data). */
export interface BatchSettings {
  correlation: CorrelationSettings;
  notify: EventNotifyPlan | null;
}

/** What the listeners of one batch did on the ingest thread, replayed here in batch order. */
export interface BatchEffects {
  /** Bus messages, published here (stream, notifications of problems). */
  published: BusMessage[];
  /** pino log lines (JSON), written to this thread's logger. */
  logs: string[];
  notificationsRecorded: number;
  notificationsLost: number;
}

export type ToIngestThread =
  | { kind: 'batch'; id: number; now_ms: number; settings: BatchSettings; items: NewEvent[] }
  | { kind: 'close' };

export type FromIngestThread =
  | ({ kind: 'done'; id: number; outcomes: InsertOutcome[] } & BatchEffects)
  | ({ kind: 'failed'; id: number; error: string } & BatchEffects)
  | { kind: 'ready' }
  | { kind: 'closed' };

export interface IngestThreadInit {
  file: string;
  logLevel: string;
}

interface IngestThreadDeps {
  file: string;
  logger: Logger;
  bus: Bus;
  clock: Clock;
  /** The settings for the next batch (cached by their services, so cheap). */
  settings: () => Promise<BatchSettings>;
  onNotificationsRecorded: (rows: number) => void;
  onNotificationsLost: (rows: number) => void;
}

/** Young-generation size of the ingest thread's heap, MiB. */
const INGEST_THREAD_YOUNG_MB = 8;

function threadFailed(message: string): AppError {
  return new AppError('ingest/thread_failed', message, { kind: 'unexpected' });
}

/**
 * Commits ingest batches on a worker thread with its own SQLite connection: the insert, the commit
 * listeners (ingest.worker.ts runs the same `createCommitListeners` in one transaction) and the
 * sync. This thread keeps only HTTP, validation and answers, so a batch's store work — tens of
 * milliseconds of CPU at peak — no longer stalls every other request, and the work spreads over
 * two cores. Batches are sent and their effects replayed (bus messages, log lines, notification
 * kicks) in batch order, before the batch's requests are answered.
 */
export class IngestThread implements BatchCommitter {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (o: InsertOutcome[]) => void; reject: (e: unknown) => void }>();
  /** Batches are posted in the order `commit` was called, although reading settings is async. */
  private posting: Promise<void> = Promise.resolve();
  private failure: AppError | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly deps: IngestThreadDeps,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (msg: FromIngestThread) => this.received(msg));
    worker.on('error', (err) => this.fail(`the ingest thread failed: ${err.message}`));
    worker.on('exit', (code) => this.fail(`the ingest thread exited (code ${code})`));
  }

  /** Starts the thread on the store file and waits until its connection is open. */
  static async start(deps: IngestThreadDeps): Promise<IngestThread> {
    const init: IngestThreadInit = { file: deps.file, logLevel: deps.logger.level };
    const worker = spawnWorker(init);
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', (msg: FromIngestThread) => (msg.kind === 'ready' ? resolve() : reject(threadFailed(`unexpected first message ${msg.kind}`))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(threadFailed(`the ingest thread exited (code ${code}) while starting`)));
    });
    await ready;
    return new IngestThread(worker, deps);
  }

  commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const outcome = new Promise<InsertOutcome[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.posting = this.posting.then(async () => {
      try {
        const settings = await this.deps.settings();
        const msg: ToIngestThread = { kind: 'batch', id, now_ms: this.deps.clock.now(), settings, items };
        this.worker.postMessage(msg);
      } catch (err) {
        this.settle(id)?.reject(err);
      }
    });
    return outcome;
  }

  async close(): Promise<void> {
    if (!this.failure) this.worker.postMessage({ kind: 'close' } satisfies ToIngestThread);
    await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await this.worker.terminate();
  }

  private received(msg: FromIngestThread): void {
    if (msg.kind === 'ready' || msg.kind === 'closed') return;
    this.replay(msg);
    const waiting = this.settle(msg.id);
    if (!waiting) return;
    if (msg.kind === 'done') waiting.resolve(msg.outcomes);
    else waiting.reject(threadFailed(msg.error));
  }

  private replay(effects: BatchEffects): void {
    for (const line of effects.logs) this.log(line);
    for (const message of effects.published) this.deps.bus.publish(message);
    if (effects.notificationsRecorded > 0) this.deps.onNotificationsRecorded(effects.notificationsRecorded);
    if (effects.notificationsLost > 0) this.deps.onNotificationsLost(effects.notificationsLost);
  }

  private log(line: string): void {
    const { level, msg, ...fields } = JSON.parse(line) as { level: number; msg?: string } & Record<string, unknown>;
    const label = this.deps.logger.levels.labels[level] as 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | undefined;
    this.deps.logger[label ?? 'info'](fields, msg);
  }

  private settle(id: number) {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    return waiting;
  }

  private fail(message: string): void {
    if (this.failure) return;
    this.failure = threadFailed(message);
    if (this.pending.size > 0) this.deps.logger.error({ batches: this.pending.size }, message);
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

/**
 * The thread runs the compiled ingest.worker.js next to this module; when the daemon runs from
 * its TypeScript sources (tests, tsx), the worker registers the TypeScript loader first.
 */
function spawnWorker(init: IngestThreadInit): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './ingest.worker.ts' : './ingest.worker.js', import.meta.url);
  // A batch's objects die young: a small young generation keeps the thread's memory down (RSS
  // target with 1,000 stream clients at peak ingest) at the price of more, short scavenges.
  const options = { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: INGEST_THREAD_YOUNG_MB } };
  if (!fromSource) return new Worker(entry, options);
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
