import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.js';
import type { BackupResult } from './backup.js';

export interface ThreadBackupInput {
  dataDir: string;
  target: string;
  nowMs: number;
}

type Reply = { ok: true; result: BackupResult } | { ok: false; code: string; message: string };

/**
 * Runs `createBackup` (without copying the master key) on a worker thread: the snapshot and its
 * checksum are synchronous and take seconds on a big store, which must not stall the daemon.
 * From the TypeScript sources (tests, tsx) the worker registers the TypeScript loader first.
 */
export async function backupOnThread(input: ThreadBackupInput): Promise<BackupResult> {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSource ? './backup.worker.ts' : './backup.worker.js', import.meta.url);
  const worker = fromSource
    ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`, { eval: true, workerData: input })
    : new Worker(entry, { workerData: input });
  try {
    // One promise: the exit that terminate() causes after the answer must not reject anything.
    const reply = await new Promise<Reply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new AppError('backup/failed', `the backup thread exited (code ${code}) without an answer`, { kind: 'operational' })));
    });
    if (!reply.ok) throw new AppError(reply.code, reply.message, { kind: 'operational' });
    return reply.result;
  } finally {
    await worker.terminate();
  }
}
