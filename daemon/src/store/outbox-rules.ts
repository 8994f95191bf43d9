import type { OutboxRecord } from './notify.types.js';

/**
 * The retry grant: a pending or failed row made due now, with one more attempt when all were
 * used; null when the row is not retryable (sending, sent, suppressed). Both adapters write this.
 */
export function retryGrant(
  row: OutboxRecord,
  nowMs: number,
): Pick<OutboxRecord, 'status' | 'next_attempt_ms' | 'max_attempts' | 'updated_ms'> | null {
  if (row.status !== 'pending' && row.status !== 'failed') return null;
  return { status: 'pending', next_attempt_ms: nowMs, max_attempts: Math.max(row.max_attempts, row.attempts + 1), updated_ms: nowMs };
}
