/**
 * The ingest thread (started by ingest-thread.ts): its own SQLite connection and the committer of
 * `createListenerCommitter` — so each batch's events, correlation and
 * notifications are one transaction and one sync, exactly as on the main thread. The clock and the
 * settings come with each batch from the main thread; bus messages, log lines and notification
 * counts go back with its answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { AuditService } from '../audit/index.js';
import { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { errorSummary, isEventFault } from '../errors.js';
import { HostsService } from '../hosts/index.js';
import { openSqliteStore } from '../store/index.js';
import { createListenerCommitter } from './commit-listeners.js';
import type { BatchEffects, BatchSettings, FromIngestThread, IngestThreadInit, ToIngestThread } from './ingest-thread.js';

const init = workerData as IngestThreadInit;
const port = parentPort!;
const send = (msg: FromIngestThread) => port.postMessage(msg);

/**
 * The effects being collected. A batch's listeners run to completion before the next message is
 * handled (they only await the store, which is synchronous here), so each batch collects its own.
 */
let effects: BatchEffects = { published: [], logs: [], notificationsRecorded: 0, notificationsLost: 0 };
const logger = pino({ level: init.logLevel, base: undefined, timestamp: false }, { write: (line: string) => void effects.logs.push(line) });

let now = 0;
const clock: Clock = { now: () => now };
let settings: BatchSettings | null = null;
const current = (): BatchSettings => {
  if (!settings) throw new Error('no batch settings yet');
  return settings;
};

const store = openSqliteStore(init.file, { checkpoints: false });
const bus = new Bus((err, message) => logger.error({ err: errorSummary(err), type: message.type }, 'bus listener failed'));
bus.subscribe((message) => effects.published.push(message));
const correlationSettings = async () => current().correlation;
// Liveness (heartbeats, silence problems resolved) is written in the batch's transaction too.
const hosts = new HostsService(store, bus, clock, logger.child({ scope: 'hosts' }), correlationSettings, new AuditService(store.audit, clock, logger));
const committer = createListenerCommitter({
  store,
  bus,
  clock,
  logger,
  correlationSettings,
  liveness: hosts,
  notify: {
    plan: () => current().notify,
    onRecorded: (rows) => (effects.notificationsRecorded += rows),
    onLost: (rows) => (effects.notificationsLost += rows),
  },
});

/** Answers go back in batch order. */
let answered: Promise<void> = Promise.resolve();

port.on('message', (msg: ToIngestThread) => {
  if (msg.kind === 'close') {
    answered = answered
      .then(() => committer.close())
      .then(() => store.close())
      .finally(() => {
        send({ kind: 'closed' });
        port.close();
      });
    return;
  }
  now = msg.now_ms;
  settings = msg.settings;
  effects = { published: [], logs: [], notificationsRecorded: 0, notificationsLost: 0 };
  const collected = effects;
  const stored = committer.commit(msg.items);
  answered = answered.then(() =>
    stored.then(
      (outcomes) => send({ kind: 'done', id: msg.id, outcomes, ...collected }),
      (err: unknown) =>
        send({ kind: 'failed', id: msg.id, error: err instanceof Error ? err.message : String(err), eventFault: isEventFault(err), ...collected }),
    ),
  );
});

send({ kind: 'ready' });
