import { BAN_SETS } from '../../../shared/src/index.js';
import { addressScope, parseAddress } from '../geo/index.js';

/** A single address, re-printed canonically (IPv4 dotted quad, IPv6 in RFC 5952 form). */
export interface BanAddress {
  address: string;
  family: 4 | 6;
}

/** Characters an address may hold at all; anything else (a slash, a bracket, a zone id, a blank) is refused before parsing. */
const ADDRESS_CHARS = /^[0-9A-Fa-f:.]{2,45}$/;

/** Scopes an address is never banned in: no attacker connects from them. */
const UNBANNABLE_SCOPES = new Set(['unspecified', 'loopback', 'multicast']);

/** The eight 16-bit groups of four 32-bit words, printed RFC 5952 style (longest run of two or more zero groups as `::`). */
function formatV6(words: readonly [number, number, number, number]): string {
  const groups = words.flatMap((w) => [w >>> 16, w & 0xffff]);
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (g: number[]) => g.map((v) => v.toString(16)).join(':');
  return best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

/**
 * `raw` as one address to ban, or why not: strictly an IPv4 or IPv6 literal (no range, port,
 * brackets or zone id), re-printed from its parsed value, so nothing but digits, hex letters, dots
 * and colons ever reaches a command line. An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function banAddress(raw: string): BanAddress | { refused: string } {
  const text = raw.trim();
  if (text.includes('/')) return { refused: 'a range (CIDR) cannot be banned; give one address' };
  if (!ADDRESS_CHARS.test(text)) return { refused: 'not an IPv4 or IPv6 address' };
  const parsed = parseAddress(text);
  if (!parsed) return { refused: 'not an IPv4 or IPv6 address' };
  const address = parsed.family === 4 ? [parsed.v4 >>> 24, (parsed.v4 >>> 16) & 255, (parsed.v4 >>> 8) & 255, parsed.v4 & 255].join('.') : formatV6(parsed.v6);
  return { address, family: parsed.family };
}

/** Why an address of a range no attacker connects from (loopback, unspecified, multicast) is not banned, or null. */
export function unbannableScope(address: BanAddress): string | null {
  const parsed = parseAddress(address.address);
  const scope = parsed ? addressScope(parsed) : 'unspecified';
  return UNBANNABLE_SCOPES.has(scope) ? `${address.address} is a ${scope} address` : null;
}

/** A CIDR range (or a single address) of the never-ban list. */
export interface Cidr {
  family: 4 | 6;
  words: readonly number[];
  bits: number;
}

/** `text` as a range (`a.b.c.d/n`, `x::/n`, or one address), or null. */
export function parseCidr(text: string): Cidr | null {
  const [addr, prefix, extra] = text.trim().split('/');
  if (extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return null;
  const parsed = parseAddress(addr);
  if (!parsed || addr.includes('%')) return null;
  const max = parsed.family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return null;
  return { family: parsed.family, words: parsed.family === 4 ? [parsed.v4] : parsed.v6, bits };
}

/** Whether `address` lies in `range`. */
export function cidrContains(range: Cidr, address: BanAddress): boolean {
  const parsed = parseAddress(address.address);
  if (!parsed || parsed.family !== range.family) return false;
  const words = parsed.family === 4 ? [parsed.v4] : parsed.v6;
  let left = range.bits;
  for (let i = 0; i < words.length && left > 0; i++) {
    const take = Math.min(32, left);
    const mask = take === 32 ? 0xffffffff : (~0 << (32 - take)) >>> 0;
    if (((words[i] & mask) >>> 0) !== ((range.words[i] & mask) >>> 0)) return false;
    left -= take;
  }
  return true;
}

/** A never-ban entry and why it is there, in words shown when a ban is refused. */
export interface NeverBanEntry {
  range: Cidr;
  why: string;
}

/** The first never-ban entry `address` lies in, or null. */
export function neverBanMatch(address: BanAddress, entries: readonly NeverBanEntry[]): NeverBanEntry | null {
  return entries.find((e) => cidrContains(e.range, address)) ?? null;
}

/**
 * Repeat offenders: the requested duration doubles for each earlier ban of the address in the
 * repeat window, capped at `maxS` (and at ipset's own largest timeout).
 */
export function banDuration(requestedS: number, previousBans: number, maxS: number): number {
  return Math.min(requestedS * 2 ** Math.min(previousBans, 31), Math.max(requestedS, maxS), 2_147_483);
}

/** ipset's family keyword for an address family. */
const FAMILY = { 4: 'inet', 6: 'inet6' } as const;

/**
 * The host commands adding a canonical address to ssh-monitor's set for `timeoutS` seconds,
 * creating the set as ssh-monitor does when it is missing (`hash:ip`, per-entry timeouts). Every
 * argument is a constant, an integer or a re-printed address, single-quoted besides.
 */
export function ipsetAddScript(ban: BanAddress, timeoutS: number): string {
  if (!Number.isInteger(timeoutS) || timeoutS < 1) throw new Error(`bad ipset timeout ${timeoutS}`);
  const set = BAN_SETS[ban.family];
  return [
    `sudo -n ipset create '${set}' hash:ip family ${FAMILY[ban.family]} timeout 0 -exist`,
    `sudo -n ipset add '${set}' '${checked(ban)}' timeout ${timeoutS} -exist`,
  ].join(' && ');
}

/** The host command removing an address from ssh-monitor's set (none there is not an error). */
export function ipsetDelScript(ban: BanAddress): string {
  return `sudo -n ipset del '${BAN_SETS[ban.family]}' '${checked(ban)}' -exist`;
}

/** The address again through `banAddress`: a script is never built from anything else. */
function checked(ban: BanAddress): string {
  const again = banAddress(ban.address);
  if ('refused' in again || again.address !== ban.address) throw new Error('ban address is not canonical');
  return again.address;
}

/** The `ssh_bans` settings' own check when saved: every never-ban entry an address or a CIDR range. */
export function checkBansSettings(value: { never_ban: readonly string[] }): { path: string; message: string }[] {
  return value.never_ban.flatMap((text, i) => (parseCidr(text) ? [] : [{ path: `never_ban.${i}`, message: `"${text}" is not an address or a CIDR range` }]));
}
