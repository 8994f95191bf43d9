import { performance } from 'node:perf_hooks';
import { isEventFault } from '../errors.js';
import type { InsertOutcome, NewEvent } from '../store/index.js';

/** Stores ingest batches together with what ingest derives from them. */
export interface BatchCommitter {
  /** Resolves with each item's outcome once the batch and what was derived from it are durable. */
  commit(items: NewEvent[]): Promise<InsertOutcome[]>;
  /** Why ingest cannot commit right now (reported by `/health`), or null. */
  readonly problem: string | null;
  close(): Promise<void>;
}

/** What `MeasuredCommitter` reports: each stored batch, and each batch the store failed. */
export interface CommitObserver {
  committed(events: number, seconds: number): void;
  storeFailed(): void;
}

/** A committer that times each batch (the batch and commit histograms in /metrics). */
export class MeasuredCommitter implements BatchCommitter {
  constructor(
    private readonly inner: BatchCommitter,
    private readonly observer: CommitObserver,
  ) {}

  async commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    const started = performance.now();
    try {
      const outcomes = await this.inner.commit(items);
      this.observer.committed(items.length, (performance.now() - started) / 1000);
      return outcomes;
    } catch (err) {
      // An event's content refused (isolated and retried one by one by the ingest service) is not a store error.
      if (!isEventFault(err)) this.observer.storeFailed();
      throw err;
    }
  }

  get problem(): string | null {
    return this.inner.problem;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
