import path from 'node:path';
import { APP_ORIGIN, CONTENT_SECURITY_POLICY } from './security.js';

/** Paths the shell forwards to the active daemon instead of serving from the renderer build. */
const PROXIED = /^\/(api|trpc)(\/|$)/;

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
  if (PROXIED.test(pathname)) return daemonUrl ? { kind: 'proxy', url: `${daemonUrl}${url.pathname}${url.search}` } : { kind: 'no_connection' };
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
