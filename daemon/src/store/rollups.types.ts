import type { Severity } from '../../../shared/src/index.js';

/** Per-hour event counters maintained at ingest, so the dashboard never scans events. */
export interface RollupRow {
  bucket_ms: number;
  /** `type`: key is the event type, per severity; `host`: key is the host id (severity `info`, unused). */
  dim: 'type' | 'host';
  key: string;
  severity: Severity;
  n: number;
}

export interface RollupsRepo {
  /** Adds (or with negative n subtracts) counters in one write. */
  add(rows: RollupRow[]): Promise<void>;
  /** Sums of counters with bucket in [fromMs, toMs], per dim, key and severity. */
  sum(fromMs: number, toMs: number): Promise<RollupRow[]>;
}
