import { closeSync, fdatasync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

type Db = Database.Database;

/**
 * How often the checkpoint thread copies committed WAL frames into the database file. A checkpoint
 * syncs the WAL first, so this also bounds how long a commit that nobody awaits `durable()` for
 * (a console write) can stay unsynced when no ingest batch syncs the WAL before.
 */
const CHECKPOINT_INTERVAL_MS = 200;

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

// Runs in the worker (CommonJS, eval): one connection, a PASSIVE checkpoint per request.
const CHECKPOINT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (msg) => {
  if (msg === 'close') { db.close(); process.exit(0); }
  try { parentPort.postMessage({ ok: db.pragma('wal_checkpoint(PASSIVE)')[0] }); }
  catch (err) { parentPort.postMessage({ error: String(err && err.message || err) }); }
});
`;

/** Checkpoint trouble is rare (the database stayed locked past the busy timeout) and not fatal. */
function warn(message: string): void {
  process.emitWarning(`SQLite checkpoint thread: ${message}`, 'SacStoreWarning');
}

export function openWalSync(db: Db, file: string, opts: { checkpoints: boolean }): WalSync {
  // An in-memory database has nothing to sync.
  if (file === ':memory:') return { durable: async () => undefined, close: async () => undefined };
  // No connection checkpoints on commit (that would block its thread for a copy and two fsyncs):
  // the checkpoint thread of the connection opened with `checkpoints` does it.
  db.pragma('wal_autocheckpoint = 0');
  let walFd: number | null = null;
  const durable = (): Promise<void> => {
    // The WAL exists once the first transaction has been written to it and stays while a connection is open.
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
    workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file },
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
  const timer = setInterval(() => {
    if (checkpointing) return;
    checkpointing = true;
    worker.postMessage('checkpoint');
  }, CHECKPOINT_INTERVAL_MS);
  timer.unref();

  return {
    durable,
    async close() {
      clearInterval(timer);
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
      closeFd();
    },
  };
}
