import { isIP } from 'node:net';

/** Names a loopback daemon answers to when `SAC_ALLOWED_HOSTS` is unset. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The host name of a `Host` header without its port and IPv6 brackets, lower-cased; null when malformed. */
export function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    const rest = h.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    return h.slice(1, end);
  }
  const m = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h);
  return m ? m[1].replace(/\.$/, '') : null;
}

/**
 * Which `Host` headers the daemon answers: the DNS-rebinding defence. A page on an attacker's
 * domain that re-resolves to 127.0.0.1 still sends its own name as Host, so a loopback daemon
 * answers only loopback names unless `SAC_ALLOWED_HOSTS` lists more. IP literals are always
 * accepted (rebinding needs a name); a request without Host (HTTP/1.0 tools) too, since browsers
 * always send one. A daemon on a non-loopback address without a list accepts any name: it cannot
 * know the names it is published under.
 *
 * `allowed`: null = the default for `listenHost`; `['*']` = any; otherwise names, `*.example.org`
 * matching any sub-domain.
 */
export function hostAllowList(allowed: string[] | null, listenHost: string): (hostHeader: string | undefined) => boolean {
  const names = allowed ?? (isLoopbackAddress(listenHost) ? LOOPBACK_NAMES : ['*']);
  if (names.includes('*')) return () => true;
  const exact = new Set(names.filter((n) => !n.startsWith('*.')).map((n) => n.toLowerCase()));
  const suffixes = names.filter((n) => n.startsWith('*.')).map((n) => n.slice(1).toLowerCase());
  return (header) => {
    if (header === undefined || header === '') return true;
    const name = hostName(header);
    if (name === null) return false;
    if (isIP(name) !== 0 || exact.has(name)) return true;
    return suffixes.some((s) => name.endsWith(s) && name.length > s.length);
  };
}
