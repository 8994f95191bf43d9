import type { StoredEvent } from '../store/index.js';
import type { ReportHostRow, ReportSummary } from '../notify/index.js';

/**
 * Aggregation of the agents' daily reports (`report.daily.ssh`, `report.daily.rdp`) into SAC's
 * daily report. Pure functions. A host that sent the same kind of report twice in the period
 * (a restarted agent re-sends it under a new event_id) counts once: its latest report wins.
 */

function count(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : [];
}

/** Parses an agent's top-IP line such as `203.0.113.45 — 29`, `203.0.113.45: 29` or `29 203.0.113.45`. */
export function parseIpCount(line: string): { ip: string; count: number } | null {
  const ip = /(\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:]+)/i.exec(line)?.[1];
  if (!ip) return null;
  const rest = line.replace(ip, ' ');
  const n = /(\d+)/.exec(rest)?.[1];
  return { ip, count: n ? Number(n) : 1 };
}

/** Most IPs listed in the overall top. */
export const TOP_IPS = 10;

export function aggregateDailyReports(events: StoredEvent[], fromMs: number, toMs: number): ReportSummary {
  const latest = new Map<string, StoredEvent>();
  for (const e of events) {
    const key = `${e.host_id}|${e.type}`;
    const seen = latest.get(key);
    if (!seen || e.occurred_ms > seen.occurred_ms || (e.occurred_ms === seen.occurred_ms && e.received_ms > seen.received_ms)) latest.set(key, e);
  }
  const hosts: ReportHostRow[] = [...latest.values()].map((e) => {
    const stats = (e.event.details?.stats ?? {}) as Record<string, unknown>;
    const ssh = e.type === 'report.daily.ssh';
    return {
      host_id: e.host_id,
      hostname: e.event.host.hostname,
      platform: ssh ? 'ssh' : 'rdp',
      successful_logins: count(stats.successful_logins ?? (ssh ? stats.ssh_success : stats.rdp_success)),
      failed_logins: count(stats.failed_logins ?? (ssh ? stats.ssh_failed : stats.rdp_failed)),
      active_bans: count(stats.active_bans),
      top_failed_ips: strings(stats.top_failed_ips),
      active_users: strings(stats.active_users),
      reported_at: e.occurred_at,
    };
  });
  hosts.sort((a, b) => a.hostname.localeCompare(b.hostname) || a.platform.localeCompare(b.platform));
  const ipTotals = new Map<string, number>();
  for (const h of hosts) {
    for (const line of h.top_failed_ips) {
      const parsed = parseIpCount(line);
      if (parsed) ipTotals.set(parsed.ip, (ipTotals.get(parsed.ip) ?? 0) + parsed.count);
    }
  }
  const sum = (k: 'successful_logins' | 'failed_logins' | 'active_bans') => hosts.reduce((n, h) => n + h[k], 0);
  return {
    period_from: new Date(fromMs).toISOString(),
    period_to: new Date(toMs).toISOString(),
    hosts,
    totals: {
      hosts: new Set(hosts.map((h) => h.host_id)).size,
      ssh_hosts: hosts.filter((h) => h.platform === 'ssh').length,
      rdp_hosts: hosts.filter((h) => h.platform === 'rdp').length,
      successful_logins: sum('successful_logins'),
      failed_logins: sum('failed_logins'),
      active_bans: sum('active_bans'),
    },
    top_failed_ips: [...ipTotals.entries()]
      .map(([ip, n]) => ({ ip, count: n }))
      .sort((a, b) => b.count - a.count || a.ip.localeCompare(b.ip))
      .slice(0, TOP_IPS),
  };
}
