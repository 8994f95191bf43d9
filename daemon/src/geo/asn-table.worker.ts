import { parentPort, workerData } from 'node:worker_threads';
import { AsnTable, type AsnTableFiles } from './asn-table.js';

// Parsing the shipped CSV takes seconds of CPU: done here, the arrays moved to the daemon's thread.
try {
  const parts = AsnTable.load(workerData as AsnTableFiles).parts();
  const buffers = [parts.v4, parts.v6].flatMap((r) => [r.start.buffer, r.end.buffer, r.asn.buffer, r.org.buffer]);
  parentPort!.postMessage({ ok: true, parts }, buffers as ArrayBuffer[]);
} catch (err) {
  parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
}
