import type { InsertOutcome, NewEvent } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';

/**
 * A committer that runs a step over each batch before it is committed (the source-address
 * enrichment): the step sets derived fields on the items and must not throw.
 */
export class EnrichingCommitter implements BatchCommitter {
  constructor(
    private readonly inner: BatchCommitter,
    private readonly enrich: (items: NewEvent[]) => void,
  ) {}

  commit(items: NewEvent[]): Promise<InsertOutcome[]> {
    this.enrich(items);
    return this.inner.commit(items);
  }

  get problem(): string | null {
    return this.inner.problem;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
