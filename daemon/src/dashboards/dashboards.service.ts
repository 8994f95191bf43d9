import { FAILED_LOGIN_TYPES, SEVERITIES, type DashboardRangeQuery, type DashboardSummary, type GeoStatus, type HourlyEvents, type Severity } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import { isHiddenType, typeMatches, type CorrelationSettingsSource } from '../correlation/index.js';
import type { EventsService } from '../events/index.js';
import { narrowToGroup, type GroupHosts } from '../groups/index.js';
import type { HostsService } from '../hosts/index.js';
import { bucketOf, ROLLUP_BUCKET_MS, splitHostTypeKey, type Store } from '../store/index.js';

/** Only these host ids (a group, or the hosts a limited caller may see); null: the whole fleet. */
type HostSet = ReadonlySet<string> | null;

const DAY_MS = 24 * 3_600_000;
const TOP = 10;
/** Countries on the failed-login map: every country there is. */
const MAP_COUNTRIES = 250;

/** The hourly buckets a range covers: first and last bucket start (inclusive), and the span [from, to) they cover. */
interface Buckets {
  first: number;
  last: number;
  from: number;
  to: number;
}

/**
 * Whole hours covering the requested range (the counters are hourly). Default: the current hour
 * and the 23 before it; `to` alone: the 24 h before it; `from` alone: up to the current hour.
 */
export function rangeBuckets(range: { from?: string; to?: string }, now: number): Buckets {
  const toMs = range.to ? Date.parse(range.to) : now + 1;
  const last = bucketOf(toMs - 1);
  const first = range.from ? bucketOf(Date.parse(range.from)) : last - DAY_MS + ROLLUP_BUCKET_MS;
  return { first, last, from: first, to: last + ROLLUP_BUCKET_MS };
}

/**
 * The dashboard summary. Its cost does not grow with the number of stored events: 24 h counters
 * come from the hourly rollups maintained at ingest (the current hour and the 23 before it),
 * problem and host counts from small indexed queries, recent events from the newest index entries.
 */
export class DashboardsService {
  constructor(
    private readonly store: Pick<Store, 'events' | 'hostState' | 'problems' | 'reports' | 'rollups'>,
    private readonly clock: Clock,
    private readonly settings: CorrelationSettingsSource,
    private readonly hosts: HostsService,
    private readonly events: EventsService,
    /** Whether source addresses are enriched now (the geo feature). */
    private readonly geoStatus: () => GeoStatus,
    private readonly groupHosts: GroupHosts,
  ) {}

  /** The hosts a dashboard counts: those of the range's group, of them those in `within` (a limited caller's hosts). */
  private async hostSet(group: string | undefined, within: HostSet): Promise<HostSet> {
    if (!group) return within;
    const members = await this.groupHosts(group);
    return new Set(within ? narrowToGroup([...members], within) : members);
  }

  /**
   * The summary of a range (default the last 24 h). Event counters cover the range's whole hours;
   * problems created or resolved, heartbeats, daily reports and recent events the range itself
   * (the last 24 h exactly by default, as before ranges).
   *
   * One rule for every figure: types hidden in the correlation settings (as they are now, not as
   * they were at ingest) are left out of every event count, top list, chart, problem count and
   * failed-login source. Host figures (online, stale, hosts reporting a heartbeat) still go by
   * heartbeats, hidden or not: they say whether a host is alive, not how many events it sent.
   *
   * Over some hosts (`range.group`, or `within`: the hosts a caller limited to host groups sees),
   * every figure counts those hosts only: per type and per host from the hourly per-host counters,
   * per severity from the hosts' stored events of the range (events pruned by retention are no
   * longer counted there), problems, hosts, reports and failed-login sources of those hosts.
   */
  async summary(range: DashboardRangeQuery = {}, within: HostSet = null): Promise<DashboardSummary> {
    const only = await this.hostSet(range.group, within);
    const ids = only && [...only];
    const settings = await this.settings();
    const now = this.clock.now();
    const hidden = settings.hiddenTypes;
    const b = rangeBuckets(range, now);
    const toMs = range.to ? Date.parse(range.to) : now + 1;
    const fromMs = range.from ? Date.parse(range.from) : (range.to ? toMs : now) - DAY_MS;
    const failedLoginTypes = FAILED_LOGIN_TYPES.filter((t) => !isHiddenType(t, hidden));
    const [rollups, counts, allHosts, states, recent, agentReports, sources, severities] = await Promise.all([
      this.store.rollups.sum(b.first, b.last),
      this.store.problems.counts(fromMs, hidden, toMs, ids ?? undefined),
      this.hosts.list(),
      this.store.hostState.list(),
      ids?.length === 0 ? [] : range.from || range.to ? this.events.recentIn(TOP, hidden, fromMs, toMs, ids ?? undefined) : this.events.recent(TOP, hidden, ids ?? undefined),
      this.store.reports.agentReports(fromMs, toMs),
      // Every country for the map, the top ASNs for the list.
      this.store.events.sourceCounts({ types: failedLoginTypes, from_ms: fromMs, to_ms: toMs, limits: { countries: MAP_COUNTRIES, asns: TOP }, ...(ids ? { host_ids: ids } : {}) }),
      ids ? this.store.events.severityHours({ host_ids: ids, from_ms: b.from, to_ms: b.to, hidden }) : [],
    ]);
    const hosts = only ? allHosts.filter((h) => only.has(h.id)) : allHosts;
    const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
    for (const r of severities) bySeverity[r.severity] += r.n;
    const byType = new Map<string, number>();
    const byHost = new Map<string, number>();
    // Counters kept before the per-host-and-type ones existed: types hidden at ingest left out.
    const byHostAtIngest = new Map<string, number>();
    for (const r of rollups) {
      if (r.dim === 'host') {
        if (!only || only.has(r.key)) byHostAtIngest.set(r.key, (byHostAtIngest.get(r.key) ?? 0) + r.n);
        continue;
      }
      if (r.dim === 'host_type') {
        const { host_id, type } = splitHostTypeKey(r.key);
        if (isHiddenType(type, hidden) || (only && !only.has(host_id))) continue;
        byHost.set(host_id, (byHost.get(host_id) ?? 0) + r.n);
        // Over some hosts, types are counted from their per-host counters.
        if (only) byType.set(type, (byType.get(type) ?? 0) + r.n);
        continue;
      }
      if (only || isHiddenType(r.key, hidden)) continue;
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
      range: { from: new Date(b.from).toISOString(), to: new Date(b.to).toISOString() },
      events_24h: [...byType.values()].reduce((a, b) => a + b, 0),
      by_severity: bySeverity,
      open_problems: counts.open,
      problems_24h: counts.created_active,
      resolved_24h: counts.resolved,
      hosts: {
        total: hosts.length,
        online: hosts.filter((h) => h.status === 'online').length,
        stale: hosts.filter((h) => h.status === 'stale').length,
        outdated: hosts.filter((h) => h.version_status === 'outdated').length,
      },
      recent_events: recent,
      top_hosts: top(rollups.some((r) => r.dim === 'host_type') ? byHost : byHostAtIngest, (id, count) => (hostnames.has(id) ? { host_id: id, hostname: hostnames.get(id)!, count } : null)),
      top_types: top(byType, (type, count) => ({ type, count })),
      heartbeats: {
        hidden: isHiddenType('agent.heartbeat', hidden),
        received_24h: typeCount('agent.heartbeat'),
        hosts_reporting: states.filter((s) => hostIds.has(s.host_id) && s.heartbeat_ms !== null && s.heartbeat_ms >= fromMs && s.heartbeat_ms < toMs)
          .length,
      },
      daily_reports_24h: { ssh: sshReports, rdp: rdpReports, total: sshReports + rdpReports },
      failed_login_sources: sources,
      geo: this.geoStatus(),
      hidden_types: hidden,
    };
  }

  /**
   * Events per hour of occurred time over the range (default the last 24 h, the current hour
   * last), by severity, oldest first; hidden types left out. One read of the range's counters;
   * over some hosts (a group, a limited caller's hosts) one read of their events.
   */
  async eventsPerHour(range: DashboardRangeQuery = {}, within: HostSet = null): Promise<HourlyEvents[]> {
    const only = await this.hostSet(range.group, within);
    const hidden = (await this.settings()).hiddenTypes;
    const b = rangeBuckets(range, this.clock.now());
    // Over some hosts, from their stored events (the hourly counters per severity are the fleet's).
    const rows = only
      ? await this.store.events.severityHours({ host_ids: [...only], from_ms: b.from, to_ms: b.to, hidden })
      : (await this.store.rollups.buckets(b.first, b.last, 'type')).filter((r) => !isHiddenType(r.key, hidden));
    const hours = new Map<number, Record<Severity, number>>();
    for (let h = b.first; h <= b.last; h += ROLLUP_BUCKET_MS) {
      hours.set(h, Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>);
    }
    for (const r of rows) {
      const bySeverity = hours.get(r.bucket_ms);
      if (bySeverity) bySeverity[r.severity] += r.n;
    }
    return [...hours].map(([h, by_severity]) => ({ hour: new Date(h).toISOString(), by_severity }));
  }
}
