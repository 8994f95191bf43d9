import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { freePort, ROOT, tempDir } from './proc.js';

/**
 * Starts FerretDB v1.24.2 (SQLite handler) on loopback for the `--store=mongodb` benchmarks,
 * with exactly the flags ARCHITECTURE.md prescribes — `--telemetry=disable` included, so it never
 * calls its vendor's server. Built by scripts/install-ferretdb.sh into .tools/bin/ferretdb.
 */
export async function startFerretDb(): Promise<{ uri: string; pid: number; stop(): Promise<void> }> {
  const bin = process.env.FERRETDB_BIN ?? path.join(ROOT, '.tools/bin/ferretdb');
  if (!existsSync(bin)) throw new Error(`FerretDB not found at ${bin}: run scripts/install-ferretdb.sh`);
  const dir = tempDir('sac-bench-ferretdb-');
  const port = await freePort();
  const child = spawn(
    bin,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const uri = `mongodb://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with ${child.exitCode}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.connect();
      await client.db('admin').command({ ping: 1 });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`FerretDB did not answer within 30 s: ${String(err)}`);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.close();
    }
  }
  return {
    uri,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
