import type { Logger } from 'pino';
import type { Event } from '../../../shared/src/index.js';
import type { Clock, Timer } from '../clock.js';
import { AppError, errorSummary, isEventFault, storageFault, storeUnavailable, unprocessableEvent } from '../errors.js';
import type { InsertOutcome, NewEvent } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';
import { actorUser, hostObservation } from './ingest.rules.js';

/** Who submitted an event, for the log line (never the key itself). */
export interface IngestContext {
  keyPrefix: string;
  requestId: string;
  /** The request's address after `SAC_TRUSTED_PROXIES`: recorded as the host's observed address. */
  clientIp?: string;
  /** The key is bound to another host and the admin chose to store such events flagged. */
  flagged?: boolean;
}

interface Pending {
  item: NewEvent;
  ctx: IngestContext;
  resolve: (outcome: InsertOutcome) => void;
  reject: (err: unknown) => void;
}

/** The answer while the ingest queue is full: operational, so HTTP maps it to 503 with Retry-After. */
export function overloaded(): AppError {
  return new AppError('ingest/overloaded', 'Too many events waiting to be stored; retry shortly', { kind: 'operational' });
}

/**
 * Formed batches handed to the committer whose commit has not landed yet (the bounded queue of
 * formed batches). A slot frees when its commit lands, not when its requests have been answered:
 * the main thread forms, validates and sends batch N+1 — and answers batch N−1 — while the
 * committer writes batch N, so the two threads overlap instead of taking turns. More only splits
 * the waiting events into smaller batches (see docs/performance.md for the measurement).
 */
const BATCHES_AHEAD = 2;

/**
 * Requests answered per turn of the event loop. A full batch's answers (hundreds of socket writes
 * and log lines) otherwise hold the loop for tens of milliseconds, and every request arriving
 * meanwhile — a 503 under overload too — waits behind them.
 */
const ANSWER_SLICE = 64;
/** How long a batch's commit may take before its requests are answered 503 (see `withinDeadline`). */
const COMMIT_DEADLINE_MS = 30_000;

/**
 * Stores each event exactly once. Requests are grouped into one store commit (group commit):
 * the first request of an idle period is written on the next turn of the event loop, the ones
 * arriving meanwhile join the following batch, and each request is answered only after its
 * batch — with what the commit listeners derive from it — is durable (see `BatchCommitter`). Up to
 * `BATCHES_AHEAD` batches are at the committer, so the event loop keeps parsing, forming the next
 * batch and answering the last while a commit is written and synced; requests are answered
 * strictly in batch order, one batch at a time. The waiting queue is bounded; past it, submissions
 * fail fast as overloaded.
 */
export class IngestService {
  private queue: Pending[] = [];
  /** Batches at the committer, their commit not landed yet (at most `BATCHES_AHEAD`). */
  private committing = 0;
  /** Batches formed and not yet answered. */
  private unanswered = 0;
  /** Events in the batches being committed or answered. */
  private inFlightEvents = 0;
  private scheduled = false;
  /** Settles when the most recently started batch has been answered. */
  private answered: Promise<void> = Promise.resolve();
  /** Why the latest batch could not be stored, until a batch is stored again. */
  private storeFailure: string | null = null;

  constructor(
    private readonly committer: BatchCommitter,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly limits: { batchMax: number; queueLimit: number; commitDeadlineMs?: number },
  ) {}

  /** Events accepted for storage and not yet answered: waiting for a batch, or in one. */
  get queued(): number {
    return this.queue.length + this.inFlightEvents;
  }

  /**
   * Why events cannot be stored right now (`/health` reports it), or null. The store's reason while
   * the latest batch failed on the store (disk full or read-only, server gone) — cleared by the next
   * batch stored: agents re-send every Retry-After, so that is within seconds of the store writing
   * again — else the committer's own (its thread being replaced). A thread replaced while the disk
   * is full still reports the disk.
   */
  get problem(): string | null {
    return this.storeFailure === null ? this.committer.problem : `events cannot be stored: ${this.storeFailure}`;
  }

  /** True while the queue is full: new submissions are refused until it drains. */
  get overloaded(): boolean {
    return this.queued >= this.limits.queueLimit;
  }

  /**
   * Resolves with `created` or `duplicate` once durable; rejects with an operational AppError, or
   * with `event/unprocessable` when this event's content cannot be stored.
   */
  submit(event: Event, ctx: IngestContext): Promise<'created' | 'duplicate'> {
    if (this.overloaded) return Promise.reject(overloaded());
    const received = this.clock.now();
    const item: NewEvent = {
      event,
      host: hostObservation(event, received, ctx.clientIp, ctx.flagged),
      occurred_ms: Date.parse(event.occurred_at.toUpperCase()),
      received_ms: received,
      actor_user: actorUser(event),
      agent_version: event.source.product_version,
    };
    return new Promise<InsertOutcome>((resolve, reject) => {
      this.queue.push({ item, ctx, resolve, reject });
      this.schedule();
    }).then((outcome) => {
      if (outcome.status === 'rejected') throw unprocessableEvent(outcome.reason);
      return outcome.status === 'inserted' ? 'created' : 'duplicate';
    });
  }

  /** Waits until everything queued so far has been committed (used at shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.unanswered > 0) await this.clock.sleep(5);
  }

  private schedule(): void {
    if (this.scheduled || this.committing >= BATCHES_AHEAD) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.limits.batchMax);
    if (batch.length === 0) return;
    this.committing++;
    this.unanswered++;
    this.inFlightEvents += batch.length;
    const stored = this.commitIsolated(batch).finally(() => {
      // The commit landed: its slot takes the next batch while this one is answered.
      this.committing--;
      if (this.queue.length > 0) this.schedule();
    });
    const previous = this.answered;
    this.answered = stored
      .then(async (results) => {
        await previous;
        await this.answer(batch, results);
      })
      .catch((err: unknown) => {
        // A bug in answering must neither leave requests hanging nor stall the batches after it.
        this.logger.error({ err: errorSummary(err), batch: batch.length }, 'ingest batch not answered');
        const error = storeUnavailable(err);
        for (const p of batch) p.reject(error);
      })
      .finally(() => {
        this.unanswered--;
        this.inFlightEvents -= batch.length;
      });
    if (this.queue.length > 0) this.schedule();
  }

  /**
   * Commits the batch; when it fails because of an event's content rather than the store (see
   * `isEventFault`), commits its events one by one so that only the poisonous one is refused and
   * the others are stored. Any other failure (the store is down) fails the whole batch at once:
   * retrying event by event would only multiply the load on a failing store.
   */
  private async commitIsolated(batch: Pending[]): Promise<(InsertOutcome | AppError)[]> {
    try {
      const outcomes = await this.withinDeadline(this.committer.commit(batch.map((p) => p.item)));
      this.storeFailure = null;
      return outcomes;
    } catch (err) {
      if (batch.length === 1 || !isEventFault(err)) return batch.map(() => this.failure(err, batch.length));
      this.logger.warn({ err: errorSummary(err), batch: batch.length }, 'ingest batch refused for an event; committing its events one by one');
      return Promise.all(
        batch.map((p) =>
          this.committer.commit([p.item]).then(
            ([outcome]) => outcome,
            (single: unknown) => this.failure(single, 1),
          ),
        ),
      );
    }
  }

  /**
   * A commit that never settles must not hold every later answer: the MongoDB driver can wait
   * forever on a write to a socket destroyed as the server went away (it waits for `drain`, which a
   * destroyed socket never emits). Past the deadline the batch is answered 503 like any store
   * failure; should the write still land, the agent's re-send is answered 409 — nothing is lost.
   */
  private withinDeadline<T>(commit: Promise<T>): Promise<T> {
    const ms = this.limits.commitDeadlineMs ?? COMMIT_DEADLINE_MS;
    let timer: Timer | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => reject(Object.assign(new Error(`the store did not finish the batch within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
    });
    return Promise.race([commit, deadline]).finally(() => timer?.cancel());
  }

  private failure(err: unknown, events: number): AppError {
    if (isEventFault(err)) return err instanceof AppError ? err : unprocessableEvent(err);
    // The batches of a lost ingest thread say nothing about the store: the reason it gave last stands.
    if (!(err instanceof AppError && err.code === 'ingest/thread_lost')) this.storeFailure = storageFault(err) ?? 'the store failed the write';
    this.logger.warn({ err: errorSummary(err instanceof AppError ? (err.cause ?? err) : err), reason: this.storeFailure, batch: events }, 'ingest batch not stored');
    return err instanceof AppError && err.code === 'store/unavailable' ? err : storeUnavailable(err);
  }

  /**
   * Logs each outcome and answers the batch's requests (each stored one is durable), `ANSWER_SLICE`
   * per turn of the event loop, so requests arriving meanwhile are read in between.
   */
  private async answer(batch: Pending[], results: (InsertOutcome | AppError)[]): Promise<void> {
    for (let from = 0; from < batch.length; from += ANSWER_SLICE) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      for (let i = from; i < Math.min(batch.length, from + ANSWER_SLICE); i++) this.answerOne(batch[i], results[i]);
    }
  }

  /**
   * Stored and duplicate events are logged at debug, so at the default level the hot path writes
   * no line per event (the counters in /metrics count them); refused ones are logged at warn.
   */
  private answerOne(pending: Pending, result: InsertOutcome | AppError): void {
    const refused = result instanceof AppError || result.status === 'rejected';
    if (refused || this.logger.isLevelEnabled('debug')) this.logOutcome(pending, result);
    if (result instanceof AppError) pending.reject(result);
    else pending.resolve(result);
  }

  private logOutcome({ item, ctx }: Pending, result: InsertOutcome | AppError): void {
    const fields = {
      event_id: item.event.event_id,
      type: item.event.type,
      hostname: item.event.host.hostname,
      key_prefix: ctx.keyPrefix,
      req_id: ctx.requestId,
    };
    if (result instanceof AppError) {
      if (result.code === 'event/unprocessable') this.logger.warn({ ...fields, err: errorSummary(result.cause) }, 'event unprocessable');
    } else if (result.status === 'rejected') this.logger.warn({ ...fields, reason: result.reason }, 'event unprocessable');
    else this.logger.debug(fields, result.status === 'inserted' ? 'event created' : 'event duplicate');
  }
}
