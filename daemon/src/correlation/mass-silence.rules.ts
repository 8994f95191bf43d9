import { someNames } from './correlation.rules.js';
import type { CrossHostRules } from './correlation.settings.js';

/** A stale host with the time it turned stale (its last-seen plus its stale threshold). */
export interface SilenceOnset<H> {
  host: H;
  onset_ms: number;
}

/**
 * The hosts that went silent together: the largest set of stale hosts whose onsets lie within
 * `withinMs` of each other, when it is more than the share of all `totalHosts` and at least the
 * minimum; else null (each silence stands on its own). Ties go to the most recent set.
 */
export function massSilenceGroup<H>(stale: readonly SilenceOnset<H>[], totalHosts: number, rule: CrossHostRules['massSilence']): SilenceOnset<H>[] | null {
  if (!rule.enabled || stale.length < rule.minHosts) return null;
  const sorted = [...stale].sort((a, b) => a.onset_ms - b.onset_ms);
  let best: [number, number] = [0, 0];
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end].onset_ms - sorted[start].onset_ms > rule.withinMs) start++;
    if (end + 1 - start >= best[1] - best[0]) best = [start, end + 1];
  }
  const group = sorted.slice(best[0], best[1]);
  return group.length >= rule.minHosts && group.length * 100 > rule.sharePercent * totalHosts ? group : null;
}

export function massSilenceTitle(hostnames: readonly string[], totalHosts: number): string {
  return `${hostnames.length} of ${totalHosts} hosts went silent together: ${someNames(hostnames)}`;
}
