import type { InsertOutcome, NewEvent } from '../store/index.js';

/** Stores ingest batches together with what ingest derives from them. */
export interface BatchCommitter {
  /** Resolves with each item's outcome once the batch and what was derived from it are durable. */
  commit(items: NewEvent[]): Promise<InsertOutcome[]>;
  /** Why ingest cannot commit right now (reported by `/health`), or null. */
  readonly problem: string | null;
  close(): Promise<void>;
}
