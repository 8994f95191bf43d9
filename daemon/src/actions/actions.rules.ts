import { presentAddress } from '../ssh/index.js';
import type { Host } from '../store/index.js';

/** True for the RD Gateway events whose session lives on another machine (`details.internal_ip`). */
export function isGatewayEvent(type: string): boolean {
  return type.startsWith('rdg.connection.');
}

/** Events a session action may start from: RD Gateway connections and RDP events of the host itself. */
export function isSessionEvent(type: string): boolean {
  return isGatewayEvent(type) || type.startsWith('rdp.');
}

/** The workstation an RD Gateway event connected to (IP or host name, maybe with a port), or null. */
export function gatewayTarget(details: Record<string, unknown> | undefined): string | null {
  const raw = presentAddress(details?.internal_ip);
  if (!raw) return null;
  // `10.0.0.5:3389` or `[fe80::1]:3389` → the address alone.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(raw);
  if (bracketed) return bracketed[1];
  const hostPort = /^([^:]+):\d+$/.exec(raw);
  return hostPort ? hostPort[1] : raw;
}

/** The session an event names (shadow events carry it as a string), or null. */
export function eventSessionId(details: Record<string, unknown> | undefined): number | null {
  for (const key of ['session_id', 'target_session_id']) {
    const v = details?.[key];
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,5}$/.test(v.trim()) ? Number(v.trim()) : NaN;
    if (Number.isInteger(n) && n >= 1 && n <= 65_535) return n;
  }
  return null;
}

/**
 * The registered Windows host an RD Gateway target names: by address (current or any reported
 * IPv4), else by host name or FQDN (case-insensitive; a short name matches an FQDN's first label).
 * Several matches: the most recently seen.
 */
export function hostForTarget(hosts: readonly Host[], target: string): Host | null {
  const t = target.trim().toLowerCase();
  const short = t.split('.')[0];
  const windows = hosts.filter((h) => h.os_family === 'windows');
  const byAddress = windows.filter((h) => h.ipv4 === t || h.ips.includes(t));
  const byName = windows.filter((h) => {
    const name = h.hostname.toLowerCase();
    const fqdn = h.fqdn?.toLowerCase() ?? null;
    return name === t || fqdn === t || (!/^\d+\.\d+\.\d+\.\d+$/.test(t) && (name === short || fqdn?.split('.')[0] === t));
  });
  const found = byAddress.length > 0 ? byAddress : byName;
  return found.sort((a, b) => b.last_seen_ms - a.last_seen_ms)[0] ?? null;
}

/** A sliding-window limiter: at most `limit` actions per user within any `windowMs`. */
export class ActionRateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Records one action of `key` at `now`; returns null when allowed, else seconds to wait. */
  take(key: string, now: number): number | null {
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return Math.max(1, Math.ceil((recent[0] + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.hits.set(key, recent);
    // Bounded: users who stopped acting are forgotten.
    if (this.hits.size > 10_000) for (const [k, v] of this.hits) if (v.every((t) => t <= now - this.windowMs)) this.hits.delete(k);
    return null;
  }
}
