/** Result of checking a daemon URL typed by the user. */
export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL = 2048;

/** localhost, 127.0.0.0/8 or [::1]: a daemon on this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Normalises the daemon base URL of a connection profile: http or https only, no credentials,
 * query or fragment (tokens never go into URLs), an optional path prefix kept without its
 * trailing slash (`https://host/sac`).
 */
export function validateDaemonUrl(input: string): UrlCheck {
  const text = input.trim();
  if (!text) return { ok: false, reason: 'Enter the server URL' };
  if (text.length > MAX_URL) return { ok: false, reason: `URL longer than ${MAX_URL} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'Not a URL: use a form like https://sac.example.org' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'Only http:// and https:// servers are supported' };
  if (!url.hostname) return { ok: false, reason: 'The URL has no host' };
  if (url.username || url.password) return { ok: false, reason: 'Do not put a user name or password in the URL' };
  // Plain http carries the password and session tokens in clear: only to a daemon on this machine.
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return { ok: false, reason: 'Use https:// for a server on another machine (http:// only for this computer)' };
  }
  if (url.search || text.includes('?')) return { ok: false, reason: 'The URL must not have a query (?…)' };
  if (url.hash || text.includes('#')) return { ok: false, reason: 'The URL must not have a fragment (#…)' };
  const pathname = url.pathname.replace(/\/+$/, '');
  return { ok: true, url: `${url.protocol}//${url.host}${pathname}` };
}
