import { BlockList, isIP } from 'node:net';
import type { GroupRules, OsFamily } from '../../../shared/src/index.js';

/** What group rules look at in a host. */
export interface GroupHost {
  id: string;
  hostname: string;
  fqdn: string | null;
  os_family: OsFamily;
  agent_product: string;
  /** Every address the host reported. */
  ips: string[];
  ipv4: string | null;
  /** Where SAC saw its agent connect from. */
  observed_ip: string | null;
}

/** A group's membership definition: hosts named by id, and rules. */
export interface GroupDefinition {
  host_ids: readonly string[];
  rules: GroupRules;
}

export interface GroupMembership {
  host: GroupHost;
  explicit: boolean;
  by_rules: boolean;
}

/** `addr/prefix` or one address, checked; null when malformed. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address, prefixText, extra] = text.split('/');
  const version = isIP(address);
  if (extra !== undefined || version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}

/** The entries of `rules.cidrs` that are not an address or an address range. */
export function invalidCidrs(rules: GroupRules): string[] {
  return rules.cidrs.filter((c) => parseCidr(c) === null);
}

/**
 * `*` (any run of characters) and `?` (one character) over the whole text, case-insensitive.
 * Greedy matching with one backtrack point: linear in practice, never exponential.
 */
export function globMatches(pattern: string, text: string): boolean {
  const p = pattern.toLowerCase();
  const s = text.toLowerCase();
  let pi = 0;
  let si = 0;
  let star = -1;
  let resume = 0;
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || p[pi] === s[si])) {
      pi++;
      si++;
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++;
      resume = si;
    } else if (star >= 0) {
      pi = star + 1;
      si = ++resume;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}

function addressRanges(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const text of cidrs) {
    const range = parseCidr(text);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list;
}

/** A test of "do these rules match this host" (ranges parsed once). */
export function rulesMatcher(rules: GroupRules): (host: GroupHost) => boolean {
  const ranges = addressRanges(rules.cidrs);
  const empty = rules.host_patterns.length + rules.os_families.length + rules.agent_products.length + rules.cidrs.length === 0;
  const inRange = (ip: string) => {
    const version = isIP(ip);
    return version !== 0 && ranges.check(ip, version === 4 ? 'ipv4' : 'ipv6');
  };
  return (host) => {
    if (empty) return false;
    const names = host.fqdn ? [host.hostname, host.fqdn] : [host.hostname];
    const addresses = [...host.ips, host.ipv4, host.observed_ip].filter((ip): ip is string => ip !== null);
    return (
      (rules.host_patterns.length === 0 || rules.host_patterns.some((p) => names.some((n) => globMatches(p, n)))) &&
      (rules.os_families.length === 0 || rules.os_families.includes(host.os_family)) &&
      (rules.agent_products.length === 0 || (rules.agent_products as readonly string[]).includes(host.agent_product)) &&
      (rules.cidrs.length === 0 || addresses.some(inRange))
    );
  };
}

/** `hostIds` (undefined: every host) narrowed to a group's members. */
export function narrowToGroup(hostIds: readonly string[] | undefined, members: ReadonlySet<string>): string[] {
  return hostIds ? hostIds.filter((id) => members.has(id)) : [...members];
}

/** The members of a group among `hosts`: named ones and those its rules match, in `hosts`' order. */
export function groupMembers(group: GroupDefinition, hosts: readonly GroupHost[]): GroupMembership[] {
  const named = new Set(group.host_ids);
  const matches = rulesMatcher(group.rules);
  const members: GroupMembership[] = [];
  for (const host of hosts) {
    const explicit = named.has(host.id);
    const byRules = matches(host);
    if (explicit || byRules) members.push({ host, explicit, by_rules: byRules });
  }
  return members;
}
