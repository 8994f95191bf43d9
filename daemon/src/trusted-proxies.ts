import { BlockList, isIP } from 'node:net';

/** The peers whose `X-Forwarded-For` is believed (`SAC_TRUSTED_PROXIES`); empty = believe none. */
export interface TrustedProxies {
  readonly size: number;
  has(address: string): boolean;
}

/** An IPv4 client seen on a dual-stack socket (`::ffff:192.0.2.1`) is that IPv4 address. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * Parses a comma-separated list of IP addresses and CIDR blocks (IPv4 and IPv6). Throws on the
 * first entry that is neither, naming it: a typo here would otherwise trust nobody (throttling
 * then counts every client as the proxy) or the wrong network (clients could then spoof).
 */
export function parseTrustedProxies(value: string): TrustedProxies {
  const list = new BlockList();
  let size = 0;
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || extra !== undefined) throw new Error(`"${entry}" is not an IP address or CIDR block`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) {
      list.addAddress(address, type);
    } else {
      const prefix = Number(bits);
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128)) throw new Error(`"${entry}" has an invalid prefix length`);
      list.addSubnet(address, prefix, type);
    }
    size++;
  }
  return {
    size,
    has(candidate) {
      const address = plainAddress(candidate);
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
