import type { SourceFailure, SourceFailureStats } from './source-failures.types.js';

/** Per address, in order of first failure: count, distinct hosts, the first `limit` event ids (rows oldest first). */
export function foldSourceFailures(rows: readonly SourceFailure[], limit: number): SourceFailureStats[] {
  const by = new Map<string, SourceFailureStats>();
  for (const r of rows) {
    let s = by.get(r.address);
    if (!s) by.set(r.address, (s = { address: r.address, count: 0, hosts: [], event_ids: [] }));
    s.count++;
    if (!s.hosts.some((h) => h.host_id === r.host_id)) s.hosts.push({ host_id: r.host_id, hostname: r.hostname });
    if (s.event_ids.length < limit) s.event_ids.push(r.event_id);
  }
  return [...by.values()];
}
