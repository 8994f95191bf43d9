import { AppError } from '../errors.js';
import { oneAnswer, startWorker } from '../worker-threads.js';
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
 */
export async function backupOnThread(input: ThreadBackupInput): Promise<BackupResult> {
  const worker = startWorker(import.meta.url, 'backup.worker', { workerData: input });
  const reply = await oneAnswer<Reply>(worker, (code) => new AppError('backup/failed', `the backup thread exited (code ${code}) without an answer`, { kind: 'operational' }));
  if (!reply.ok) throw new AppError(reply.code, reply.message, { kind: 'operational' });
  return reply.result;
}
