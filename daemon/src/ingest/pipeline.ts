import type { Logger } from 'pino';
import { CorrelationService, isLivenessType, type CorrelationSettings } from '../correlation/index.js';
import { errorSummary } from '../errors.js';
import type { DomainFact, Facts } from '../facts.js';
import { recordLiveness } from '../hosts/index.js';
import { factNotificationRows, type EventNotifyPlan } from '../notify/index.js';
import { catalogueRecorder } from '../suggest/index.js';
import type { CommittedEvent, InsertOutcome, NewEvent, OutboxRecord, Store } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';

/** What a batch is correlated and notified with: plain data, read once per batch by the caller. */
export interface BatchContext {
  now_ms: number;
  correlation: CorrelationSettings;
  /** Null when no notification channel is configured. */
  notify: EventNotifyPlan | null;
}

/** A log line as data: written by whoever applies the batch's effects. */
export interface LogRecord {
  /** The logger scope (`correlation`, `notify`, `ingest`). */
  scope: string;
  level: 'info' | 'error';
  msg: string;
  fields: Record<string, unknown>;
}

/**
 * What a committed batch did besides its writes, returned as data so it can cross a thread: its
 * facts (the events committed, then the hosts and problems it changed; their notifications are
 * already in the outbox), log records, and how many notification rows were recorded or lost.
 */
export interface BatchEffects {
  facts: DomainFact[];
  logs: LogRecord[];
  notificationsRecorded: number;
  notificationsLost: number;
}

export interface IngestPipeline {
  /**
   * Stores a batch and, in the same commit, everything derived from it: correlation (severity
   * overrides, rollups, inventory, flaps, problems), liveness (heartbeats, silence problems
   * resolved) and the outbox rows of its facts (`factNotificationRows`). Batches' derivations run strictly in call order, even when batches overlap.
   * `context` is read inside the commit, once.
   *
   * SQLite: all of it is one transaction and one sync. MongoDB (FerretDB has no multi-document
   * transactions): the derived writes follow the batch's insert and finish before the call
   * resolves, so before any 201; a daemon dying between the two keeps the events without what
   * was derived from them (a re-sent event is a duplicate and is not derived again).
   */
  commit(items: NewEvent[], context: () => BatchContext | Promise<BatchContext>): Promise<{ outcomes: InsertOutcome[]; effects: BatchEffects }>;
  /** Resolves once the derivations of the batches started so far have run. */
  close(): Promise<void>;
}

/** The events of a batch its insert stored, with their hosts (the others were duplicates or refused). */
export function committedOf(items: readonly NewEvent[], outcomes: readonly InsertOutcome[]): CommittedEvent[] {
  const committed: CommittedEvent[] = [];
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'inserted') committed.push({ ...items[i], host_id: outcome.host_id });
  });
  return committed;
}

/**
 * The batch's facts without its `events.committed`, to cross back from the ingest thread: the
 * main thread has the items and puts the fact back (`withCommitted`) rather than having every
 * stored event cloned back to it.
 */
export function withoutCommitted(effects: BatchEffects): BatchEffects {
  return { ...effects, facts: effects.facts.filter((f) => f.type !== 'events.committed') };
}

/** Puts back the `events.committed` fact `withoutCommitted` left out (first, as the pipeline returns it). */
export function withCommitted(effects: BatchEffects, committed: CommittedEvent[]): BatchEffects {
  return committed.length === 0 ? effects : { ...effects, facts: [{ type: 'events.committed', events: committed }, ...effects.facts] };
}

export const noEffects = (logs: LogRecord[] = []): BatchEffects => ({ facts: [], logs, notificationsRecorded: 0, notificationsLost: 0 });

/**
 * The ingest pipeline, one for both places batches are committed: the main thread (MongoDB,
 * `:memory:`) and the ingest thread (a SQLite file, ingest.worker.ts). It only writes to the store
 * and returns the rest (`BatchEffects`); `applyBatchEffects` publishes and logs them.
 */
export function createIngestPipeline(store: Store): IngestPipeline {
  const correlation = new CorrelationService(store);
  const catalogue = catalogueRecorder(store);
  /** Settles when the derivations of the most recently started batch have run. */
  let derived: Promise<void> = Promise.resolve();

  /** Each step's failure is logged and the rest go on: the events stay accepted whatever happens here. */
  async function derive(committed: CommittedEvent[], ctx: BatchContext, effects: BatchEffects): Promise<void> {
    const step = async (name: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (err) {
        effects.logs.push({ scope: 'ingest', level: 'error', msg: `ingest step failed: ${name}`, fields: { err: errorSummary(err), events: committed.length } });
      }
    };
    // Liveness (heartbeats, status, silence problems) and correlation (the other problem keys,
    // rollups, inventory) write different keys and neither reads what the other writes: on
    // MongoDB they go out together. Their facts keep this order, after the events'.
    const live: DomainFact[] = [];
    const correlated: DomainFact[] = [];
    await Promise.all([
      step('liveness', async () => {
        const alive = committed.filter((c) => isLivenessType(c.event.type));
        if (alive.length === 0) return;
        const items = alive.map((c) => ({ host_id: c.host_id, hostname: c.event.host.hostname, at_ms: c.received_ms }));
        live.push(...(await recordLiveness(store, items, ctx.now_ms)));
      }),
      step('correlation', async () => {
        const { facts, opened } = await correlation.onCommitted(committed, ctx.correlation, ctx.now_ms);
        correlated.push(...facts);
        for (const p of opened) effects.logs.push({ scope: 'correlation', level: 'info', msg: 'problem opened', fields: p });
      }),
      step('suggestions', () => catalogue(committed)),
    ]);
    effects.facts.push({ type: 'events.committed', events: committed }, ...live, ...correlated);
    const plan = ctx.notify;
    if (!plan) return;
    let rows: OutboxRecord[] = [];
    await step('notifications', async () => {
      rows = await factNotificationRows(effects.facts, plan, ctx.now_ms, store);
    });
    if (rows.length === 0) return;
    try {
      await store.outbox.insertMany(rows);
      effects.notificationsRecorded += rows.length;
    } catch (err) {
      effects.logs.push({ scope: 'notify', level: 'error', msg: 'notifications not recorded', fields: { err: errorSummary(err), notifications: rows.length } });
      effects.notificationsLost += rows.length;
    }
  }

  return {
    async commit(items, context) {
      const effects = noEffects();
      const previous = derived;
      let done!: () => void;
      derived = new Promise((resolve) => (done = resolve));
      const stored = store.events.insertBatch(items, async (outcomes) => {
        await previous;
        try {
          const committed = committedOf(items, outcomes);
          if (committed.length > 0) await derive(committed, await context(), effects);
        } finally {
          done();
        }
      });
      // A batch that failed before its derivations must not hold up the next batch's.
      stored.catch(() => previous.then(done));
      return { outcomes: await stored, effects };
    },
    async close() {
      await derived;
    },
  };
}

/**
 * Logs what a batch returned (here, or after it crossed back from the ingest thread) and
 * publishes its facts; resolves when the reactions that answer with the batch (the stream's) have run.
 */
export async function applyBatchEffects(
  effects: BatchEffects,
  deps: { facts: Pick<Facts, 'publish'>; logger: Logger; onNotificationsRecorded: (rows: number) => void; onNotificationsLost: (rows: number) => void },
): Promise<void> {
  for (const r of effects.logs) deps.logger.child({ scope: r.scope })[r.level](r.fields, r.msg);
  if (effects.notificationsRecorded > 0) deps.onNotificationsRecorded(effects.notificationsRecorded);
  if (effects.notificationsLost > 0) deps.onNotificationsLost(effects.notificationsLost);
  await deps.facts.publish(effects.facts, 'ingest');
}

/** Commits on this thread (MongoDB, `:memory:`): the pipeline, then its effects applied. */
export class LocalCommitter implements BatchCommitter {
  readonly problem = null;

  constructor(
    private readonly pipeline: IngestPipeline,
    private readonly context: () => Promise<BatchContext>,
    private readonly apply: (effects: BatchEffects) => Promise<void>,
  ) {}

  async commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    const { outcomes, effects } = await this.pipeline.commit(items, this.context);
    await this.apply(effects);
    return outcomes;
  }

  close(): Promise<void> {
    return this.pipeline.close();
  }
}
