import { BlockList, isIP } from 'node:net';

/**
 * Where push subscriptions may point. Registering a subscription is the one thing a non-admin can
 * do that makes the daemon fetch a URL, so endpoints are held to the public push services.
 */
export interface PushEndpointPolicy {
  /** Host names (`*.domain` for sub-domains) of push services; https on the default port only. */
  hosts: string[];
  /** Also accept http(s) endpoints on a literal loopback address (a test push service). */
  allowLoopback: boolean;
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address, if it is one. */
function embeddedIpv4(ip: string): string | null {
  const m = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function isLoopbackAddress(ip: string): boolean {
  const v4 = isIP(ip) === 4 ? ip : embeddedIpv4(ip);
  return v4 !== null ? v4.startsWith('127.') : ip === '::1';
}

/** Loopback, private, link-local, shared, documentation, multicast and reserved addresses. */
export function isPrivateAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  const v4 = family === 4 ? ip : embeddedIpv4(ip);
  return v4 !== null ? PRIVATE.check(v4, 'ipv4') : PRIVATE.check(ip, 'ipv6');
}

/**
 * Whether the daemon may connect to `ip` for a push delivery. `literal`: the endpoint URL names the
 * address itself; only then does `allowLoopback` apply (a name resolving to loopback is refused).
 */
export function pushAddressAllowed(ip: string, policy: PushEndpointPolicy, literal: boolean): boolean {
  return !isPrivateAddress(ip) || (literal && policy.allowLoopback && isLoopbackAddress(ip));
}

function hostMatches(host: string, patterns: string[]): boolean {
  return patterns.some((p) => (p.startsWith('*.') ? host.endsWith(p.slice(1)) && host.length > p.length - 1 : host === p));
}

/** Why an endpoint URL is refused, or null when it may be registered. Addresses are checked again at delivery. */
export function pushEndpointProblem(endpoint: string, policy: PushEndpointPolicy): string | null {
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    return 'is not a URL';
  }
  if (u.username || u.password) return 'must not carry credentials';
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.allowLoopback && isIP(host) !== 0 && isLoopbackAddress(host) && (u.protocol === 'https:' || u.protocol === 'http:')) return null;
  if (u.protocol !== 'https:') return 'must be an https URL';
  if (u.port !== '') return 'must use the default https port';
  if (isIP(host) !== 0) return 'must name a push service host, not an address';
  if (!hostMatches(host, policy.hosts)) return `must be on a known push service (${policy.hosts.join(', ')})`;
  return null;
}
