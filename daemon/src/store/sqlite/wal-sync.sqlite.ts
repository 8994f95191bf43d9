import { closeSync, fdatasync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
// The store is opened without the daemon's clock: its timers keep the database healthy in real
// (wall) time, which daemons sharing it compare, whatever time a test gives the services.
import { systemClock } from '../../clock.js';

type Db = Database.Database;

/**
 * How often the checkpoint thread copies committed WAL frames into the database file. A checkpoint
 * syncs the WAL first, so this also bounds how long a commit that nobody awaits `durable()` for
 * (a console write) can stay unsynced when no ingest batch syncs the WAL before.
 */
const CHECKPOINT_INTERVAL_MS = 200;

/**
 * Size of the WAL's content above which the checkpoint thread restarts the WAL from its beginning,
 * and the size a restarted WAL file is truncated back to (`journal_size_limit`). PASSIVE checkpoints
 * alone never restart it under steady ingest: SQLite writes from the WAL's start again only when a
 * transaction begins after a checkpoint has copied every frame, and commits keep landing while a
 * checkpoint copies and syncs, so the file grew by gigabytes (docs/performance.md, Soak).
 */
export const WAL_LIMIT_BYTES = 64 * 2 ** 20;

/**
 * How long a RESTART checkpoint may wait for the write lock and for readers of old frames before it
 * gives up until the next turn. It holds the write lock while it waits for readers, so this bounds
 * the stall it can cause ingest.
 */
const RESTART_BUSY_TIMEOUT_MS = 100;

/**
 * Durability for commits made with `synchronous = NORMAL`, with the fsync and the checkpoints taken
 * off the event loop.
 *
 * better-sqlite3 is synchronous: with `synchronous = FULL` every commit blocks the only JavaScript
 * thread for the WAL fsync, and SQLite's automatic checkpoints block it for a copy and two more
 * fsyncs (the p99 latency spikes). So the store's connection commits with `synchronous = NORMAL` —
 * the WAL frames are written, not yet synced — and `durable()` then fdatasyncs the WAL file on
 * libuv's thread pool; ingest answers 201 only after that resolves. A commit is therefore on disk
 * before its 201, exactly as with FULL (which is the same write + sync of the WAL), while the event
 * loop goes on parsing. Checkpoints run on a worker thread with its own connection; a checkpoint
 * syncs the WAL before copying frames into the database and the database after, so frames moved out
 * of the WAL stay durable. A process kill cannot lose a committed transaction in any mode: the
 * frames are in the OS once the commit returns.
 */
export interface WalSync {
  /** Resolves once every transaction committed so far is on stable storage. */
  durable(): Promise<void>;
  close(): Promise<void>;
}

// Runs in the worker (CommonJS, eval): one connection, a PASSIVE checkpoint per request — it copies
// without blocking anyone — then, when the WAL holds more than the limit, a RESTART checkpoint: it
// takes the write lock, copies the few frames committed since, waits for readers of old frames, and
// so makes the next transaction write from the WAL's start (journal_size_limit then truncates the
// file). Busy after its timeout, it has done what a PASSIVE one does; the next turn tries again.
const CHECKPOINT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
parentPort.on('message', (msg) => {
  if (msg === 'close') { db.close(); process.exit(0); }
  try {
    const passive = db.pragma('wal_checkpoint(PASSIVE)')[0];
    const restart = passive.log * frameBytes > workerData.walLimitBytes ? db.pragma('wal_checkpoint(RESTART)')[0] : null;
    parentPort.postMessage({ ok: restart ?? passive });
  } catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }
});
`;

/** Checkpoint trouble is rare (the database stayed locked past the busy timeout) and not fatal. */
function warn(message: string): void {
  process.emitWarning(`SQLite checkpoint thread: ${message}`, 'SacStoreWarning');
}

export function openWalSync(db: Db, file: string, opts: { checkpoints: boolean; walLimitBytes: number }): WalSync {
  // An in-memory database has nothing to sync.
  if (file === ':memory:') return { durable: async () => undefined, close: async () => undefined };
  // No connection checkpoints on commit (that would block its thread for a copy and two fsyncs):
  // the checkpoint thread of the connection opened with `checkpoints` does it.
  db.pragma('wal_autocheckpoint = 0');
  // The first commit after the WAL restarted truncates the file to this size (it never shrinks otherwise).
  db.pragma(`journal_size_limit = ${opts.walLimitBytes}`);
  let walFd: number | null = null;
  const durable = (): Promise<void> => {
    // The WAL exists once the first transaction has been written to it and stays while a connection
    // is open; restarting and truncating it keep the same file, so this descriptor stays the WAL's.
    walFd ??= openSync(`${file}-wal`, 'r');
    const fd = walFd;
    return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  };
  const closeFd = () => {
    if (walFd !== null) closeSync(walFd);
    walFd = null;
  };
  if (!opts.checkpoints) return { durable, close: async () => closeFd() };

  const worker = new Worker(CHECKPOINT_WORKER, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      walLimitBytes: opts.walLimitBytes,
      busyTimeoutMs: RESTART_BUSY_TIMEOUT_MS,
    },
    // It allocates next to nothing; small heap limits keep its memory small.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  worker.unref();
  let checkpointing = false;
  // A full or read-only disk fails every checkpoint until it is fixed: warn once per failure, not
  // five times a second.
  let failing: string | null = null;
  worker.on('message', (msg: { error?: string }) => {
    checkpointing = false;
    if (msg.error && msg.error !== failing) warn(msg.error);
    failing = msg.error ?? null;
  });
  worker.on('error', (err) => {
    // Without the thread, SQLite's own checkpoints on the connection keep the WAL bounded.
    warn(err.message);
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
  const timer = systemClock.setInterval(() => {
    if (checkpointing) return;
    checkpointing = true;
    worker.postMessage('checkpoint');
  }, CHECKPOINT_INTERVAL_MS);

  return {
    durable,
    async close() {
      timer.cancel();
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await Promise.race([exited, new Promise<void>((resolve) => systemClock.setTimeout(resolve, 2000))]);
      await worker.terminate();
      closeFd();
    },
  };
}
