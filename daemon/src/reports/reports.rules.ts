import { isIP } from 'node:net';
import type { StoredEvent } from '../store/index.js';
import type { ReportHostRow, ReportSummary } from '../../../shared/src/index.js';

/**
 * Aggregation of the agents' daily reports (`report.daily.ssh`, `report.daily.rdp`) into SAC's
 * daily report. Pure functions. A host that sent the same kind of report twice in the period
 * (a restarted agent re-sends it under a new event_id) counts once: its latest report wins.
 */

function count(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : 0;
}

/** Entries of an agent's list that are kept: a real report lists about ten. */
export const MAX_LIST_ITEMS = 100;
/** Characters of one top-IP line that are read: a real one is an address, a separator and a count. */
export const MAX_IP_LINE = 256;

function strings(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v
    .slice(0, MAX_LIST_ITEMS)
    .filter((x): x is string => typeof x === 'string' && x.trim() !== '')
    .map((x) => x.trim().slice(0, MAX_IP_LINE));
}

/** Characters that can appear in an IPv4 or IPv6 literal; anything else separates tokens. */
function isAddressChar(c: number): boolean {
  return (c >= 48 && c <= 58) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 46; // 0-9 : A-F a-f .
}

/**
 * Parses an agent's top-IP line such as `203.0.113.45 — 29`, `203.0.113.45: 29` or `29 203.0.113.45`.
 * One linear pass over at most MAX_IP_LINE characters, addresses checked by `net.isIP`: a regular
 * expression here backtracked quadratically on a long entry (80k characters took 11 s), so one
 * agent key could stall the report job.
 */
export function parseIpCount(line: string): { ip: string; count: number } | null {
  const head = line.slice(0, MAX_IP_LINE);
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= head.length; i++) {
    const inToken = i < head.length && isAddressChar(head.charCodeAt(i));
    if (inToken && start < 0) start = i;
    else if (!inToken && start >= 0) {
      tokens.push(head.slice(start, i));
      start = -1;
    }
  }
  let ip: string | null = null;
  let count: number | null = null;
  for (const token of tokens) {
    if (ip === null) {
      // `203.0.113.45:` — a trailing colon is the separator, unless it belongs to an IPv6 `::`.
      const candidate = isIP(token) ? token : token.replace(/:+$/, '');
      if (isIP(candidate)) {
        ip = candidate;
        continue;
      }
      // `203.0.113.45:29` — an IPv4 address and its count joined by the colon.
      const colon = token.lastIndexOf(':');
      if (colon > 0 && isIP(token.slice(0, colon)) === 4 && /^\d{1,9}$/.test(token.slice(colon + 1))) {
        ip = token.slice(0, colon);
        count ??= Number.parseInt(token.slice(colon + 1), 10);
        continue;
      }
    }
    if (count === null && /^\d{1,9}:?$/.test(token)) count = Number.parseInt(token, 10);
  }
  return ip === null ? null : { ip, count: count ?? 1 };
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
