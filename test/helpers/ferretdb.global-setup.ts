import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
  }
}

const FERRETDB_BIN = process.env.FERRETDB_BIN ?? path.resolve('.tools/bin/ferretdb');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitForServer(uri: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`FerretDB exited with ${child.exitCode}:\n${log()}`);
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500 });
    try {
      await client.connect();
      await client.db('admin').command({ ping: 1 });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.close();
    }
  }
  throw new Error(`FerretDB did not answer within 30 s:\n${log()}`);
}

/**
 * Starts FerretDB (SQLite handler) on loopback for the MongoDB store tests, exactly as
 * ARCHITECTURE.md prescribes, telemetry disabled. A real MongoDB can be used instead with
 * SAC_TEST_MONGODB_URI. Never skipped: if neither is available the run fails here, loudly.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SAC_TEST_MONGODB_URI) {
    project.provide('mongoUri', process.env.SAC_TEST_MONGODB_URI);
    return async () => undefined;
  }
  if (!existsSync(FERRETDB_BIN)) {
    throw new Error(`FerretDB not found at ${FERRETDB_BIN}: run scripts/install-ferretdb.sh (the MongoDB store tests need it)`);
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sac-ferretdb-'));
  const port = await freePort();
  let output = '';
  const child = spawn(
    FERRETDB_BIN,
    [
      '--handler=sqlite',
      `--sqlite-url=file:${dir}/`,
      `--state-dir=${dir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-',
      '--telemetry=disable',
      '--log-level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const uri = `mongodb://127.0.0.1:${port}/`;
  await waitForServer(uri, child, () => output);
  process.stdout.write(`MongoDB store tests: FerretDB v1.24.2 (sqlite handler) on ${uri}\n`);
  project.provide('mongoUri', uri);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    rmSync(dir, { recursive: true, force: true });
  };
}
