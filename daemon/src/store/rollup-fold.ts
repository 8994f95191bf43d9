import type { Severity } from '../../../shared/src/index.js';
import type { RollupRow } from './rollups.types.js';

/** Rollup bucket: one hour of occurred time. */
export const ROLLUP_BUCKET_MS = 3_600_000;

export const bucketOf = (ms: number) => Math.floor(ms / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS;

/** The key of a `host_type` counter. Host ids are UUIDs (no `/`), so the first `/` splits it back. */
export const hostTypeKey = (hostId: string, type: string) => `${hostId}/${type}`;

export function splitHostTypeKey(key: string): { host_id: string; type: string } {
  const at = key.indexOf('/');
  return { host_id: key.slice(0, at), type: key.slice(at + 1) };
}

/**
 * Folds events into rollup rows: per hour, type and severity; per hour, host and type; and per
 * hour and host for the events `countsForHost` admits (hidden types are left out of host
 * counters). `sign` -1 subtracts.
 */
export function foldRollups(
  events: readonly { occurred_ms: number; type: string; severity: Severity; host_id: string }[],
  countsForHost: (type: string) => boolean,
  sign: 1 | -1 = 1,
): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  const add = (bucket: number, dim: RollupRow['dim'], key: string, severity: Severity) => {
    const id = `${bucket}|${dim}|${key}|${severity}`;
    const row = rows.get(id);
    if (row) row.n += sign;
    else rows.set(id, { bucket_ms: bucket, dim, key, severity, n: sign });
  };
  for (const e of events) {
    const bucket = bucketOf(e.occurred_ms);
    add(bucket, 'type', e.type, e.severity);
    add(bucket, 'host_type', hostTypeKey(e.host_id, e.type), 'info');
    if (countsForHost(e.type)) add(bucket, 'host', e.host_id, 'info');
  }
  return [...rows.values()];
}
