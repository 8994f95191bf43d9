/**
 * Whether a per-minute series of the soak grows after warm-up. The first WARMUP_SHARE of the
 * minutes (at least one) are warm-up and not judged; of the rest, the median of the last third is
 * compared with the median of the first third (a third is at least one minute, and the two never
 * overlap). The series grows when the last third's median exceeds the first's by more than
 * MAX_GROWTH and is at or above the series' `ignoreBelow` (an absolute floor under which a change
 * is noise, e.g. an event-loop p99 of a few ms). Medians make one noisy minute harmless once a
 * third spans three minutes or more (at 9+ minutes; the default 20 minutes compares 6 with 6).
 */
export const WARMUP_SHARE = 0.2;
export const MAX_GROWTH = 0.1;

export interface SeriesVerdict {
  /** Median of the first third after warm-up; null when there are fewer than two minutes to judge. */
  first: number | null;
  last: number | null;
  grows: boolean;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function warmupMinutes(minutes: number): number {
  return Math.max(1, Math.ceil(minutes * WARMUP_SHARE));
}

export function judgeSeries(values: readonly number[], ignoreBelow = 0): SeriesVerdict {
  const judged = values.slice(warmupMinutes(values.length));
  if (judged.length < 2) return { first: null, last: null, grows: false };
  const third = Math.min(Math.max(1, Math.ceil(judged.length / 3)), Math.floor(judged.length / 2));
  const first = median(judged.slice(0, third));
  const last = median(judged.slice(-third));
  return { first, last, grows: last >= ignoreBelow && last > first * (1 + MAX_GROWTH) };
}
