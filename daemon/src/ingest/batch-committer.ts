import type { Logger } from 'pino';
import { errorSummary } from '../errors.js';
import type { CommittedEvent, InsertOutcome, NewEvent, Store } from '../store/index.js';

/**
 * Runs with the events each group commit inserted — inside that commit where the store allows —
 * before their requests are answered. A listener that throws does not un-store anything: the
 * events stay accepted and the error is logged.
 */
export type CommitListener = (committed: CommittedEvent[]) => Promise<void> | void;

/** Stores ingest batches together with what the commit listeners derive from them. */
export interface BatchCommitter {
  /** Resolves with each item's outcome once the batch and the listeners' writes are durable. */
  commit(items: NewEvent[]): Promise<InsertOutcome[]>;
  /** Why ingest cannot commit right now (reported by `/health`), or null. */
  readonly problem: string | null;
  close(): Promise<void>;
}

/**
 * Commits on this thread: each batch's listeners run inside the store's commit of the batch
 * (`EventsRepo.insertBatch`), strictly in batch order even when batches overlap.
 */
export class ListenerCommitter implements BatchCommitter {
  /** Settles when the listeners of the most recently started batch have run. */
  private listened: Promise<void> = Promise.resolve();
  readonly problem = null;

  constructor(
    private readonly store: Pick<Store, 'events'>,
    private readonly listeners: CommitListener[],
    private readonly logger: Logger,
  ) {}

  commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    const previous = this.listened;
    let listened!: () => void;
    this.listened = new Promise((resolve) => (listened = resolve));
    const stored = this.store.events.insertBatch(items, async (outcomes) => {
      await previous;
      await this.run(items, outcomes).finally(listened);
    });
    // A batch that failed before its listeners must not hold up the next batch's.
    stored.catch(() => previous.then(listened));
    return stored;
  }

  async close(): Promise<void> {
    await this.listened;
  }

  private async run(items: NewEvent[], outcomes: InsertOutcome[]): Promise<void> {
    const committed: CommittedEvent[] = [];
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'inserted') committed.push({ ...items[i], host_id: outcome.host_id });
    });
    if (committed.length === 0) return;
    for (const listener of this.listeners) {
      try {
        await listener(committed);
      } catch (err) {
        this.logger.error({ err: errorSummary(err), events: committed.length }, 'commit listener failed');
      }
    }
  }
}
