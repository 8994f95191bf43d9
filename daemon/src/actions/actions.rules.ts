import { isIP } from 'node:net';
import { type ActionTarget, lower } from '../action-target.js';
import type { Host } from '../store/index.js';

/** Placeholders the Windows agent writes instead of null. */
const PLACEHOLDERS = new Set(['', '-', 'n/a', 'null']);

/** An address field as an agent reported it, or null when it is missing or a placeholder. */
function presentAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  return PLACEHOLDERS.has(v.toLowerCase()) ? null : v;
}

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

export type TargetMatch = { found: Host } | { found: null; claimants: Host[] };

/**
 * The Windows host an RD Gateway target (an address or a name) names. A host an admin pinned to it
 * wins (pins are unique). Otherwise every host that claims it — by observed or reported address,
 * host name, FQDN or its first label — is a claimant; exactly one is the answer, several are
 * refused by the caller naming them (never "the most recently seen": any agent may report any
 * address for itself).
 */
export function hostForTarget(hosts: readonly Host[], target: string): TargetMatch {
  const t = target.trim().toLowerCase();
  const short = isIP(t) === 0 ? t.split('.')[0] : null;
  const windows = hosts.filter((h) => h.os_family === 'windows');
  const pinned = windows.filter((h) => lower(h.pinned_address) === t || lower(h.pinned_winrm_name) === t);
  if (pinned.length === 1) return { found: pinned[0] };
  const claimants = windows.filter((h) => {
    const names = [lower(h.hostname), lower(h.fqdn), lower(h.pinned_winrm_name)];
    const addresses = [lower(h.ipv4), lower(h.observed_ip), lower(h.pinned_address)];
    return addresses.includes(t) || names.some((n) => n !== null && (n === t || n === short || n.split('.')[0] === t));
  });
  return claimants.length === 1 ? { found: claimants[0] } : { found: null, claimants };
}

/**
 * True when an RD Gateway `target` names `host` by what its agent cannot choose alone: its host
 * name (or that name's first label; a bound key's host name is the admin's) or the address or name
 * its actions are verified to use. A target the host is matched to only by a reported FQDN or
 * address would send the credentials to the host's own address, not to the workstation the
 * gateway connected to.
 */
export function gatewayTargetConfirmed(host: Pick<Host, 'hostname'>, verified: ActionTarget, target: string): boolean {
  const t = target.trim().toLowerCase();
  const hostname = host.hostname.trim().toLowerCase();
  if (isIP(t) === 0 && (t === hostname || t.split('.')[0] === hostname)) return true;
  return verified.verified && [verified.address, verified.name].some((v) => v.toLowerCase() === t);
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
