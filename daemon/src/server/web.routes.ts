import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';

/** Paths the console never answers, so an unknown API route keeps its JSON 404. */
const RESERVED = /^\/(api|trpc|health|healthz|metrics)(\/|$|\?)/;

/**
 * Content-Security-Policy of the console page: everything from this origin, nothing inline but
 * style attributes (Vue style bindings and the chart library set them).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** The web build's folder: `desktop/renderer/dist` under the repository root (found from this module). */
export function defaultWebDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, 'desktop', 'renderer', 'dist');
}

/** index.html with its `<base href="/">` pointing at the base path, so relative assets and routes work under it. */
export function withBasePath(html: string, basePath: string): string {
  return html.replace('<base href="/">', `<base href="${basePath}/">`);
}

/** A browser loading a page (not a script fetching data). */
function isNavigation(req: Request): boolean {
  return req.get('sec-fetch-mode') === 'navigate' || req.accepts(['json', 'html']) === 'html';
}

/** Types of the files the web build has compressed copies of (`scripts/precompress-web.mjs`: `<file>.br`, `<file>.gz`). */
const COMPRESSIBLE: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * Sends a file's compressed copy when the build has one and the client accepts it (brotli over
 * gzip): the request is pointed at `<file>.br` or `<file>.gz` for the static handler after it, with
 * the original's type and `Content-Encoding`. Every response of such a type varies by `Accept-Encoding`.
 */
function precompressed(root: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = COMPRESSIBLE[path.extname(req.path)];
    if (!type) return next();
    res.vary('Accept-Encoding');
    // Ours is the preference among the accepted ones: browsers list gzip before br at equal weight.
    const encoding = ENCODINGS.find((e) => req.acceptsEncodings(e.name) === e.name);
    if (!encoding) return next();
    let file: string;
    try {
      file = path.join(root, decodeURIComponent(req.path));
    } catch {
      return next();
    }
    // Only a plain file inside the build: the static handler refuses the rest itself.
    if (!file.startsWith(root + path.sep) || !existsSync(file + encoding.suffix)) return next();
    res.set({ 'Content-Type': type, 'Content-Encoding': encoding.name });
    const query = req.url.indexOf('?');
    req.url = query < 0 ? req.url + encoding.suffix : `${req.url.slice(0, query)}${encoding.suffix}${req.url.slice(query)}`;
    next();
  };
}

const MISSING_BUILD_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SAC console not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2933}code{background:#eef1f4;padding:.1rem .35rem;border-radius:4px}</style>
</head><body><h1>The SAC console has not been built</h1>
<p>The daemon is running and its API works, but the web console files are missing.</p>
<p>Run <code>npm run build:web</code> in the SAC folder (or start SAC with <code>npm start</code>, which builds it), then reload this page.</p>
</body></html>`;

/**
 * Serves the console's web build at `/`: files from the build folder (hashed assets cached for a
 * year; scripts and styles as their precompressed copies when the client accepts them), and index.html for other browser navigations (history fallback) — never for the API,
 * tRPC, health or metrics paths. Without a build, pages answer 503 saying how to build it. Mount
 * it before feature routers so a navigation to a console path wins over a same-named REST route.
 */
export function createWebRoutes(opts: { webDir: string; basePath: string }): express.Router {
  const routes = express.Router();
  const indexFile = path.join(opts.webDir, 'index.html');
  let cachedIndex: { mtimeMs: number; html: string } | null = null;

  const readIndex = (): string | null => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(indexFile).mtimeMs;
    } catch {
      return null;
    }
    if (cachedIndex?.mtimeMs !== mtimeMs) cachedIndex = { mtimeMs, html: withBasePath(readFileSync(indexFile, 'utf8'), opts.basePath) };
    return cachedIndex.html;
  };

  const sendIndex = (_req: Request, res: Response) => {
    const html = readIndex();
    if (html === null) {
      res.status(503).set({ 'Cache-Control': 'no-store', 'Retry-After': '30' }).type('html').send(MISSING_BUILD_PAGE);
      return;
    }
    res
      .status(200)
      .set({
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': CONSOLE_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'X-Frame-Options': 'DENY',
      })
      .type('html')
      .send(html);
  };

  routes.use((req, _res, next) => next((req.method !== 'GET' && req.method !== 'HEAD') || RESERVED.test(req.path) ? 'router' : undefined));
  routes.get('/', sendIndex);
  routes.get('/index.html', sendIndex);
  const assetsDir = path.join(opts.webDir, 'assets');
  routes.use('/assets', precompressed(assetsDir), express.static(assetsDir, { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  routes.use(precompressed(opts.webDir), express.static(opts.webDir, { index: false, maxAge: '1h', fallthrough: true }));
  // History fallback for browser navigations only: some REST routes live outside /api (GET /problems),
  // and a script asking them for JSON must reach them; a missing file (with an extension) stays a 404.
  routes.get(/.*/, (req, res, next) => (!path.extname(req.path) && isNavigation(req) ? sendIndex(req, res) : next()));
  return routes;
}
