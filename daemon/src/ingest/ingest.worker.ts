/**
 * The ingest thread (started by ingest-thread.ts): its own SQLite connection and the ingest
 * pipeline, so each batch's events and what is derived from them are one transaction and one
 * sync, exactly as on the main thread. Each batch comes with its context and goes back with its
 * outcomes and effects (its stored events stay here: the main thread has them).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorSummary, isEventFault } from '../errors.js';
import { openSqliteStore } from '../store/index.js';
import type { FromIngestThread, IngestThreadInit, ToIngestThread } from './ingest-thread.js';
import { createIngestPipeline, withoutCommitted } from './pipeline.js';

const init = workerData as IngestThreadInit;
const port = parentPort!;
const send = (msg: FromIngestThread) => port.postMessage(msg);

const store = openSqliteStore(init.file, { checkpoints: false });
const pipeline = createIngestPipeline(store);

/** Answers go back in batch order. */
let answered: Promise<void> = Promise.resolve();

port.on('message', (msg: ToIngestThread) => {
  if (msg.kind === 'close') {
    answered = answered
      .then(() => pipeline.close())
      .then(() => store.close())
      .finally(() => {
        send({ kind: 'closed' });
        port.close();
      });
    return;
  }
  // The answer is made as soon as the batch settles, and only its sending waits for the batches
  // before it. A batch failing while an earlier one still syncs (the disk filling up under load)
  // is then handled at once: a rejection left waiting for the earlier answer was unhandled, and an
  // unhandled rejection kills the thread.
  const answer = pipeline.commit(msg.items, () => msg.context).then(
    ({ outcomes, effects }): FromIngestThread => ({ kind: 'done', id: msg.id, outcomes, effects: withoutCommitted(effects) }),
    (err: unknown): FromIngestThread => ({
      kind: 'failed',
      id: msg.id,
      error: err instanceof Error ? err.message : String(err),
      code: typeof (err as { code?: unknown } | null)?.code === 'string' ? (err as { code: string }).code : null,
      eventFault: isEventFault(err),
      logs: [{ scope: 'ingest', level: 'error', msg: 'ingest batch failed on the ingest thread', fields: { err: errorSummary(err), events: msg.items.length } }],
    }),
  );
  answered = answered.then(() => answer).then(send);
});

send({ kind: 'ready' });
