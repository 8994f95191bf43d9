import { SEVERITIES, type DashboardSummary, type HourlyEvents, type Severity } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import { isHiddenType, typeMatches, type CorrelationSettingsSource } from '../correlation/index.js';
import type { EventsService } from '../events/index.js';
import type { HostsService } from '../hosts/index.js';
import { bucketOf, ROLLUP_BUCKET_MS, type Store } from '../store/index.js';

const DAY_MS = 24 * 3_600_000;
const TOP = 10;

/**
 * The dashboard summary. Its cost does not grow with the number of stored events: 24 h counters
 * come from the hourly rollups maintained at ingest (the current hour and the 23 before it),
 * problem and host counts from small indexed queries, recent events from the newest index entries.
 */
export class DashboardsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: CorrelationSettingsSource,
    private readonly hosts: HostsService,
    private readonly events: EventsService,
  ) {}

  async summary(): Promise<DashboardSummary> {
    const settings = await this.settings();
    const now = this.clock.now();
    const hidden = settings.hiddenTypes;
    const currentBucket = bucketOf(now);
    const [rollups, counts, hosts, states, recent, agentReports] = await Promise.all([
      this.store.rollups.sum(currentBucket - DAY_MS + ROLLUP_BUCKET_MS, currentBucket),
      this.store.problems.counts(now - DAY_MS, hidden),
      this.hosts.list(),
      this.store.hostState.list(),
      this.events.recent(TOP, hidden),
      this.store.reports.agentReports(now - DAY_MS, now + 1),
    ]);
    const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    const byType = new Map<string, number>();
    const byHost = new Map<string, number>();
    for (const r of rollups) {
      if (r.dim === 'host') {
        byHost.set(r.key, (byHost.get(r.key) ?? 0) + r.n);
        continue;
      }
      if (isHiddenType(r.key, hidden)) continue;
      bySeverity[r.severity] += r.n;
      byType.set(r.key, (byType.get(r.key) ?? 0) + r.n);
    }
    const typeCount = (pattern: string) => [...byType].filter(([t]) => typeMatches(t, pattern)).reduce((n, [, c]) => n + c, 0);
    const hostnames = new Map(hosts.map((h) => [h.id, h.hostname]));
    const top = <T>(m: Map<string, number>, view: (key: string, count: number) => T | null): T[] =>
      [...m]
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .flatMap(([k, n]) => view(k, n) ?? [])
        .slice(0, TOP);
    const hostIds = new Set(hostnames.keys());
    // Counted as the daily report counts them: received in the last 24 h, once per host and platform.
    const reporting = (type: string) =>
      isHiddenType(type, hidden) ? 0 : new Set(agentReports.filter((e) => e.type === type && hostIds.has(e.host_id)).map((e) => e.host_id)).size;
    const [sshReports, rdpReports] = [reporting('report.daily.ssh'), reporting('report.daily.rdp')];
    return {
      events_24h: [...byType.values()].reduce((a, b) => a + b, 0),
      by_severity: bySeverity,
      open_problems: counts.open,
      problems_24h: counts.created_active,
      resolved_24h: counts.resolved,
      hosts: {
        total: hosts.length,
        online: hosts.filter((h) => h.status === 'online').length,
        stale: hosts.filter((h) => h.status === 'stale').length,
        outdated: hosts.filter((h) => h.outdated).length,
      },
      recent_events: recent,
      top_hosts: top(byHost, (id, count) => (hostnames.has(id) ? { host_id: id, hostname: hostnames.get(id)!, count } : null)),
      top_types: top(byType, (type, count) => ({ type, count })),
      heartbeats: {
        received_24h: typeCount('agent.heartbeat'),
        hosts_reporting: states.filter((s) => hostIds.has(s.host_id) && s.heartbeat_ms !== null && s.heartbeat_ms >= now - DAY_MS).length,
      },
      daily_reports_24h: { ssh: sshReports, rdp: rdpReports, total: sshReports + rdpReports },
    };
  }

  /** Events per hour of occurred time over the last 24 h (the current hour last), by severity; hidden types left out. */
  async eventsPerHour(): Promise<HourlyEvents[]> {
    const hidden = (await this.settings()).hiddenTypes;
    const first = bucketOf(this.clock.now()) - DAY_MS + ROLLUP_BUCKET_MS;
    const hours = Array.from({ length: DAY_MS / ROLLUP_BUCKET_MS }, (_, i) => first + i * ROLLUP_BUCKET_MS);
    const rows = await Promise.all(hours.map((h) => this.store.rollups.sum(h, h)));
    return hours.map((h, i) => {
      const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
      for (const r of rows[i]) if (r.dim === 'type' && !isHiddenType(r.key, hidden)) bySeverity[r.severity] += r.n;
      return { hour: new Date(h).toISOString(), by_severity: bySeverity };
    });
  }
}
