import type { Severity } from '../../../shared/src/index.js';

/** Per-hour event counters maintained at ingest, so the dashboard never scans events. */
export interface RollupRow {
  bucket_ms: number;
  /**
   * `type`: key is the event type, per severity; `host`: key is the host id, types hidden at ingest
   * left out (severity `info`, unused); `host_type`: key is `hostKey(host id, type)`, every type
   * (severity `info`), so a figure per host can leave out the types hidden when it is read.
   */
  dim: 'type' | 'host' | 'host_type';
  key: string;
  severity: Severity;
  n: number;
}

export interface RollupsRepo {
  /** Adds (or with negative n subtracts) counters in one write. */
  add(rows: RollupRow[]): Promise<void>;
  /** Sums of counters with bucket in [fromMs, toMs], per dim, key and severity. */
  sum(fromMs: number, toMs: number): Promise<RollupRow[]>;
  /** The positive counters of one dim with bucket in [fromMs, toMs], per bucket (one query for a chart or sparklines). */
  buckets(fromMs: number, toMs: number, dim: RollupRow['dim']): Promise<RollupRow[]>;
}
