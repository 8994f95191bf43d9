import { isIPv6 } from 'node:net';
import type { AddressScope } from '../../../shared/src/index.js';

/** An address as the lookups take it: IPv4 as one unsigned 32-bit number, IPv6 as four. */
export type ParsedAddress = { family: 4; ip: string; v4: number } | { family: 6; ip: string; v6: [number, number, number, number] };

/** Longest text taken as an address (an IPv6 address with a zone id fits well within). */
const MAX_ADDRESS_LENGTH = 64;

/** The number of a dotted-quad IPv4 address, or -1 when `text` is not one (leading zeros refused, as `net.isIPv4` does). */
function v4Number(text: string): number {
  let value = 0;
  let part = -1;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46;
    if (c === 46) {
      if (part < 0 || parts === 4) return -1;
      value = value * 256 + part;
      parts++;
      part = -1;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (digits > 0 && part === 0) return -1;
      part = (part < 0 ? 0 : part * 10) + c - 48;
      if (++digits > 3 || part > 255) return -1;
    } else return -1;
  }
  return parts === 4 ? value : -1;
}

/** The four 32-bit words of a valid IPv6 address (no zone id); an embedded IPv4 tail is read as such. */
export function v6Words(text: string): [number, number, number, number] {
  const lastColon = text.lastIndexOf(':');
  // An embedded IPv4 tail (`::ffff:192.0.2.1`) is the last two groups.
  if (text.includes('.', lastColon)) {
    const v4 = v4Number(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const gap = text.indexOf('::');
  const left = groups(gap < 0 ? text : text.slice(0, gap));
  const right = gap < 0 ? [] : groups(text.slice(gap + 2));
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return [0, 1, 2, 3].map((i) => ((all[2 * i] << 16) >>> 0) + all[2 * i + 1]) as [number, number, number, number];
}

/**
 * The address an agent sent, normalised, or null when it is not one: surrounding blanks, brackets
 * and an IPv6 zone id removed; an IPv4-mapped IPv6 address (`::ffff:203.0.113.5`, what a dual-stack
 * listener reports) becomes the IPv4 address.
 */
export function parseAddress(raw: string): ParsedAddress | null {
  if (raw.length > MAX_ADDRESS_LENGTH) return null;
  let text = raw.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const v4 = v4Number(text);
  if (v4 >= 0) return { family: 4, ip: text, v4 };
  if (!isIPv6(text)) return null;
  const v6 = v6Words(text.toLowerCase());
  if (v6[0] === 0 && v6[1] === 0 && v6[2] === 0xffff) {
    const mapped = v6[3];
    return { family: 4, ip: [mapped >>> 24, (mapped >>> 16) & 255, (mapped >>> 8) & 255, mapped & 255].join('.'), v4: mapped };
  }
  return { family: 6, ip: text.toLowerCase(), v6 };
}

/** IPv4 special-purpose ranges (RFC 6890 and its updates): first address, prefix length, scope. */
const V4_RANGES: [string, number, AddressScope][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V4_TABLE = V4_RANGES.map(([first, bits, scope]) => ({ mask: bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0, net: v4Number(first), scope }));

/** IPv6 special-purpose ranges by their first word (all prefixes here are at most 32 bits, except ::/128 and ::1/128). */
const V6_RANGES: [number, number, AddressScope][] = [
  [0xfc000000, 7, 'private'],
  [0xfe800000, 10, 'link_local'],
  [0xfec00000, 10, 'reserved'],
  [0x20010db8, 32, 'documentation'],
  [0x3fff0000, 20, 'documentation'],
  [0xff000000, 8, 'multicast'],
];

/** The kind of range an address lies in; `public` for everything routed on the internet. */
export function addressScope(a: ParsedAddress): AddressScope {
  if (a.family === 4) {
    for (const r of V4_TABLE) if (((a.v4 & r.mask) >>> 0) === r.net) return r.scope;
    return 'public';
  }
  const [w0, w1, w2, w3] = a.v6;
  if (w0 === 0 && w1 === 0 && w2 === 0) return w3 === 0 ? 'unspecified' : w3 === 1 ? 'loopback' : 'reserved';
  for (const [net, bits, scope] of V6_RANGES) if (((w0 & ((~0 << (32 - bits)) >>> 0)) >>> 0) === net) return scope;
  return 'public';
}

/**
 * Whether the databases are asked about an address of this scope: public ones, and documentation
 * ranges — never routed, so only an operator's (or a test's) own database is asked about them (see
 * `shippedOnly`). Private, loopback, link-local, CGNAT and the rest are only labelled.
 */
export function isLookedUp(scope: AddressScope): boolean {
  return scope === 'public' || scope === 'documentation';
}
