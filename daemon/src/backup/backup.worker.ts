import { parentPort, workerData } from 'node:worker_threads';
import { createBackup } from './backup.js';
import type { ThreadBackupInput } from './backup.thread.js';

// One scheduled backup off the daemon's event loop: VACUUM INTO and the checksum are synchronous.
const input = workerData as ThreadBackupInput;
try {
  const result = createBackup({ dataDir: input.dataDir, target: input.target, masterKey: undefined, saveMasterKey: false, clock: { now: () => input.nowMs } });
  parentPort!.postMessage({ ok: true, result });
} catch (err) {
  parentPort!.postMessage({ ok: false, code: (err as { code?: string }).code ?? 'backup/failed', message: (err as Error).message });
}
