import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { AppError, errorSummary, storeUnavailable, unprocessableEvent } from '../errors.js';
import type { InsertOutcome, NewEvent } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';
import { committedOf, noEffects, withCommitted, type BatchContext, type BatchEffects, type LogRecord } from './pipeline.js';

export type ToIngestThread = { kind: 'batch'; id: number; context: BatchContext; items: NewEvent[] } | { kind: 'close' };

export type FromIngestThread =
  /** `effects` without the `events.committed` fact: rebuilt here from the batch's items and outcomes. */
  | { kind: 'done'; id: number; outcomes: InsertOutcome[]; effects: BatchEffects }
  | {
      kind: 'failed';
      id: number;
      error: string;
      /** The driver's error code (`SQLITE_FULL`…), when it has one: the main thread classifies it (`storageFault`). */
      code: string | null;
      /** The batch's content, not the store, failed (`isEventFault`). */
      eventFault: boolean;
      logs: LogRecord[];
    }
  | { kind: 'ready' }
  | { kind: 'closed' };

export interface IngestThreadInit {
  file: string;
}

interface IngestThreadDeps {
  file: string;
  clock: Clock;
  logger: Logger;
  /** What the next batch is correlated and notified with (cached by their services, so cheap). */
  context: () => Promise<BatchContext>;
  /** Logs what a batch returned and publishes its facts (`applyBatchEffects`). */
  apply: (effects: BatchEffects) => Promise<void>;
  /** Called each time a dead thread is being replaced (for the metric). */
  onRestart: () => void;
}

/** Backoff between restarts of a dead ingest thread: doubling from the base up to the most. */
const RESTART_BASE_MS = 100;
const RESTART_MAX_MS = 5000;

/** Young-generation size of the ingest thread's heap, MiB. */
const INGEST_THREAD_YOUNG_MB = 8;

function threadFailed(message: string): AppError {
  return new AppError('ingest/thread_failed', message, { kind: 'unexpected' });
}

/** The batches of a thread that died: they say nothing about the store (`IngestService.problem`). */
function threadLost(message: string): AppError {
  return new AppError('ingest/thread_lost', message, { kind: 'unexpected' });
}

/**
 * Commits ingest batches on a worker thread with its own SQLite connection: the thread runs the
 * ingest pipeline (`createIngestPipeline`, the same as on the main thread), so a batch's events
 * and everything derived from them are one transaction and one sync. This thread keeps only
 * HTTP, validation and answers, so a batch's store work — tens of milliseconds of CPU at peak — no
 * longer stalls every other request, and the work spreads over two cores. Each batch goes with
 * its context (clock and settings, read here) and comes back with its effects (facts, log
 * records, notification counts), applied in batch order before its requests are answered.
 */
export class IngestThread implements BatchCommitter {
  private nextId = 1;
  private readonly pending = new Map<number, { items: NewEvent[]; resolve: (o: InsertOutcome[]) => void; reject: (e: unknown) => void }>();
  /** Batches are posted in the order `commit` was called, although reading settings is async. */
  private posting: Promise<void> = Promise.resolve();
  /** The running thread; null while it is being (re)started. */
  private worker: Worker | null = null;
  /** Settles with the running thread, waiting through a restart. */
  private running: Promise<Worker>;
  private closing = false;
  private restarts = 0;

  private constructor(
    private readonly deps: IngestThreadDeps,
    private readonly spawn: () => Worker,
    first: Worker,
  ) {
    this.running = Promise.resolve(this.attach(first));
  }

  /**
   * Starts the thread on the store file and waits until its connection is open. `spawn` replaces
   * the real thread (tests of the restart).
   */
  static async start(deps: IngestThreadDeps, spawn?: () => Worker): Promise<IngestThread> {
    const init: IngestThreadInit = { file: deps.file };
    const start = spawn ?? (() => spawnWorker(init));
    return new IngestThread(deps, start, await whenReady(start()));
  }

  /** Set while the thread is being restarted (`/health` reports it). */
  get problem(): string | null {
    return this.worker || this.closing ? null : 'the ingest thread is restarting';
  }

  commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    if (this.closing) return Promise.reject(threadFailed('ingest is stopping'));
    const id = this.nextId++;
    const outcome = new Promise<InsertOutcome[]>((resolve, reject) => this.pending.set(id, { items, resolve, reject }));
    this.posting = this.posting.then(async () => {
      try {
        const worker = await this.running;
        const msg: ToIngestThread = { kind: 'batch', id, context: await this.deps.context(), items };
        worker.postMessage(msg);
      } catch (err) {
        this.settle(id)?.reject(err);
      }
    });
    return outcome;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.posting;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ kind: 'close' } satisfies ToIngestThread);
    await Promise.race([exited, new Promise<void>((resolve) => this.deps.clock.setTimeout(resolve, 5000))]);
    await worker.terminate();
  }

  private attach(worker: Worker): Worker {
    this.worker = worker;
    worker.on('message', (msg: FromIngestThread) => this.received(msg));
    // A driver's error crosses the thread as a plain object: its code, not its message, survives.
    worker.on('error', (err) => this.lost(worker, `the ingest thread failed: ${err.message ?? JSON.stringify(err)}`));
    worker.on('exit', (code) => this.lost(worker, `the ingest thread exited (code ${code})`));
    return worker;
  }

  /**
   * The thread died: its batches in flight get 503 (the agents re-send them; a batch it had
   * committed then answers 409), and a new thread is started with backoff while new batches wait.
   */
  private lost(worker: Worker, message: string): void {
    if (worker !== this.worker) return;
    this.worker = null;
    const failure = threadLost(message);
    for (const waiting of this.pending.values()) waiting.reject(failure);
    this.pending.clear();
    if (this.closing) return;
    this.deps.logger.error({ restarts: this.restarts }, `${message}; restarting it`);
    this.deps.onRestart();
    this.running = this.restart();
    this.running.catch(() => undefined);
  }

  private async restart(): Promise<Worker> {
    for (;;) {
      const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** this.restarts);
      this.restarts++;
      await this.deps.clock.sleep(delay);
      if (this.closing) throw threadFailed('ingest is stopping');
      try {
        const started = await whenReady(this.spawn());
        if (this.closing) {
          await started.terminate();
          throw threadFailed('ingest is stopping');
        }
        const worker = this.attach(started);
        this.deps.logger.info({ restarts: this.restarts }, 'ingest thread restarted');
        return worker;
      } catch (err) {
        if (this.closing) throw err;
        this.deps.logger.error({ err: errorSummary(err), restarts: this.restarts }, 'ingest thread did not start');
      }
    }
  }

  private received(msg: FromIngestThread): void {
    if (msg.kind === 'ready' || msg.kind === 'closed') return;
    // Settled now: the batch is answered even if the thread dies while its facts are published.
    const waiting = this.settle(msg.id);
    // A failed batch was rolled back: only its log records are kept.
    const effects = msg.kind === 'done' ? withCommitted(msg.effects, waiting ? committedOf(waiting.items, msg.outcomes) : []) : noEffects(msg.logs);
    void this.deps.apply(effects).then(() => {
      if (!waiting) return;
      if (msg.kind === 'done') waiting.resolve(msg.outcomes);
      else if (msg.eventFault) waiting.reject(unprocessableEvent(msg.error));
      else if (msg.code !== null) waiting.reject(storeUnavailable(Object.assign(new Error(msg.error), { code: msg.code })));
      else waiting.reject(threadFailed(msg.error));
    });
  }

  private settle(id: number) {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    return waiting;
  }

}

/** Resolves with the thread once it has opened its connection. */
function whenReady(worker: Worker): Promise<Worker> {
  return new Promise<Worker>((resolve, reject) => {
    const started = (msg: FromIngestThread) => {
      if (msg.kind === 'ready') resolve(worker);
      else reject(threadFailed(`unexpected first message ${msg.kind}`));
    };
    worker.once('message', started);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(threadFailed(`the ingest thread exited (code ${code}) while starting`)));
  });
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
