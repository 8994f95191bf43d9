import path from 'node:path';
import { APP_ORIGIN, CONTENT_SECURITY_POLICY } from './security.js';

/** Paths the shell forwards to the active daemon instead of serving from the renderer build. */
export const PROXIED = /^\/(api|trpc)(\/|$)/;

export type AppRoute =
  | { kind: 'file'; file: string }
  | { kind: 'proxy'; url: string }
  | { kind: 'no_connection' }
  | { kind: 'not_found' };

/**
 * Decides what an `app://sac/...` request is: a file of the renderer build (never outside its
 * folder), an API call forwarded to the daemon of the active profile, or nothing.
 */
export function routeAppRequest(requestUrl: string, rendererDir: string, daemonUrl: string | null): AppRoute {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return { kind: 'not_found' };
  }
  if (url.origin !== APP_ORIGIN && `${url.protocol}//${url.host}` !== APP_ORIGIN) return { kind: 'not_found' };
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { kind: 'not_found' };
  }
  // Dot segments, also percent-encoded ones, are resolved before deciding: `/api/%2e%2e/x` is `/x`,
  // and what reaches the daemon is the normalised path, so it routes exactly what was checked here.
  const normalised = path.posix.normalize(pathname);
  if (PROXIED.test(normalised)) {
    if (!daemonUrl) return { kind: 'no_connection' };
    // Re-encoded as a path: `,` of tRPC batches stays, a decoded `?` or `#` cannot start a query.
    const encoded = encodeURI(normalised).replace(/\?/g, '%3F').replace(/#/g, '%23');
    return { kind: 'proxy', url: `${daemonUrl}${encoded}${url.search}` };
  }
  if (PROXIED.test(pathname)) return { kind: 'not_found' };
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, pathname === '/' ? 'index.html' : `.${pathname}`);
  if (!file.startsWith(root + path.sep)) return { kind: 'not_found' };
  return { kind: 'file', file };
}

/** Request headers passed to the daemon: what the console API needs, nothing that identifies the app's origin. */
const FORWARDED_HEADERS = ['accept', 'accept-language', 'authorization', 'content-type', 'last-event-id'];

export function proxyRequestHeaders(headers: Headers): Headers {
  const out = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Headers of a file served to the renderer (the CSP goes on every one of them). */
export function fileResponseHeaders(file: string): Record<string, string> {
  return {
    'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
  };
}
