import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import { freePort } from './free-port.js';
import { startPostgres, type RunningPostgres } from './postgres.js';

/** FerretDB as built by scripts/install-ferretdb.sh, unless FERRETDB_BIN names another. */
export const FERRETDB_BIN =
  process.env.FERRETDB_BIN ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../.tools/bin/ferretdb');

/**
 * FerretDB's connections to PostgreSQL (its own default is 50). Above what the daemons sharing it
 * can have in flight (three daemons × the driver's pool of 64 in the multi-daemon test): when every
 * one of its connections was taken, FerretDB 1.24 stopped answering altogether — all 50 idle in
 * PostgreSQL, not even a ping answered — seen at the start of bench:ingest's 256 connections.
 */
const FERRETDB_PG_POOL = 200;

/** FerretDB's storage: SQLite files, or a PostgreSQL cluster (indexes, filter/sort pushdown). */
export type FerretHandler = 'sqlite' | 'postgresql';

export interface RunningFerretDb {
  uri: string;
  handler: FerretHandler;
  /** The PostgreSQL cluster under the `postgresql` handler, null under `sqlite`. */
  postgres: RunningPostgres | null;
  pid: number;
  dir: string;
  port: number;
  /** Stops the server and deletes its data, unless `keepData`. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * Starts FerretDB v1.24.2 on loopback with exactly the flags ARCHITECTURE.md prescribes —
 * `--telemetry=disable` included, so it never calls its vendor's server — and waits until it
 * answers a ping. Handler `sqlite` (default) keeps its files in a fresh temporary directory;
 * `postgresql` first starts a private PostgreSQL cluster (scripts/postgres.ts), stopped with it.
 * Used by the MongoDB store tests, the multi-daemon test and `bench:ingest --store=mongodb`.
 */
export async function startFerretDb(
  opts: { logLevel?: 'warn' | 'error'; dir?: string; handler?: FerretHandler } = {},
): Promise<RunningFerretDb> {
  if (!existsSync(FERRETDB_BIN)) throw new Error(`FerretDB not found at ${FERRETDB_BIN}: run scripts/install-ferretdb.sh`);
  const handler = opts.handler ?? 'sqlite';
  // Given `dir`, a stopped server comes back with its data (the store outage test).
  const dir = opts.dir ?? mkdtempSync(path.join(os.tmpdir(), 'sac-ferretdb-'));
  const port = await freePort();
  const pg: RunningPostgres | null = handler === 'postgresql' ? await startPostgres() : null;
  const child = spawn(
    FERRETDB_BIN,
    [
      ...(pg ? ['--handler=postgresql', `--postgresql-url=${pg.url}?pool_max_conns=${FERRETDB_PG_POOL}`] : ['--handler=sqlite', `--sqlite-url=file:${dir}/`]),
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      `--log-level=${opts.logLevel ?? 'warn'}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const uri = `mongodb://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await pg?.stop();
      throw new Error(`FerretDB exited with ${child.exitCode}:\n${output}`);
    }
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.connect();
      await client.db('admin').command({ ping: 1 });
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await pg?.stop();
        throw new Error(`FerretDB did not answer within 30 s: ${String(err)}\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.close();
    }
  }
  return {
    uri,
    handler,
    postgres: pg,
    pid: child.pid!,
    dir,
    port,
    async stop(stopOpts = {}) {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      await pg?.stop();
      if (!stopOpts.keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}
