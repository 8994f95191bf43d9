import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { rawRequest } from '../helpers/raw-http.js';
import { tempDir } from '../helpers/stores.js';

// Serving the console touches no store, so these run on SQLite only.
const INDEX = '<!doctype html><html><head><base href="/"><script type="module" src="./assets/app-1a2b.js"></script></head><body><div id="app"></div></body></html>';
const NAVIGATE = { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'Sec-Fetch-Mode': 'navigate' };

const VENDOR = Array.from({ length: 400 }, (_, i) => `export const value${i} = "the console's script, line ${i}";`).join('\n');
const STYLE = Array.from({ length: 200 }, (_, i) => `.row-${i} { padding: ${i}px; }`).join('\n');

function fakeBuild(): string {
  const dir = tempDir('sac-web-');
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(path.join(dir, 'index.html'), INDEX);
  writeFileSync(path.join(dir, 'assets', 'app-1a2b.js'), 'console.log("sac")');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dir, 'assets', 'vendor-3c4d.js'), VENDOR);
  writeFileSync(path.join(dir, 'assets', 'style-5e6f.css'), STYLE);
  // The build step `npm run build:web` ends with.
  execFileSync(process.execPath, [path.resolve('scripts/precompress-web.mjs'), dir]);
  return dir;
}

describe('console web build served at /', () => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac('sqlite', { SAC_WEB_DIR: fakeBuild(), SAC_METRICS_ACCESS: 'public' });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('serves index.html at / with a CSP and no caching of the page', async () => {
    const res = await fetch(`${sac.url}/`, { headers: NAVIGATE });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(await res.text()).toBe(INDEX);
  });

  it('falls back to index.html for browser navigations to client routes, even where a REST route shares the path', async () => {
    for (const p of ['/events?type=rdp.login', '/hosts/abc', '/admin/settings', '/problems', '/problems/42']) {
      const res = await fetch(`${sac.url}${p}`, { headers: NAVIGATE });
      expect(res.status, p).toBe(200);
      expect(await res.text(), p).toContain('<div id="app">');
    }
  });

  it('never shadows the API, tRPC, health or metrics, and leaves JSON clients of other paths alone', async () => {
    const api = await fetch(`${sac.url}/api/v1/no-such-route`, { headers: NAVIGATE });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: { code: 'route/not_found', message: 'No such route' } });
    const health = await fetch(`${sac.url}/health`, { headers: NAVIGATE });
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    const metrics = await fetch(`${sac.url}/metrics`, { headers: NAVIGATE });
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const trpc = await fetch(`${sac.url}/trpc/system.info`, { headers: NAVIGATE });
    expect(trpc.headers.get('content-type')).toMatch(/json/);
    const json = await fetch(`${sac.url}/some/json/path`, { headers: { Accept: 'application/json' } });
    expect(json.status).toBe(404);
    expect(json.headers.get('content-type')).toMatch(/json/);
    // The console is served at / for GET only: another method there is 405 naming what is served.
    const post = await fetch(`${sac.url}/`, { method: 'POST', headers: NAVIGATE });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toMatch(/\bGET\b/);
  });

  it('serves hashed assets as immutable and answers 404 for a missing file', async () => {
    const asset = await fetch(`${sac.url}/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(await asset.text()).toBe('console.log("sac")');
    expect((await fetch(`${sac.url}/favicon.svg`)).status).toBe(200);
    expect((await fetch(`${sac.url}/assets/gone-9z.js`, { headers: NAVIGATE })).status).toBe(404);
  });

  it('sends scripts and styles compressed as the client accepts (brotli over gzip), as they are otherwise', async () => {
    const get = (p: string, acceptEncoding?: string) => rawRequest(sac.url, { path: p, headers: acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {} });
    const br = await get('/assets/vendor-3c4d.js', 'gzip, deflate, br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers['cache-control']).toContain('immutable');
    expect(brotliDecompressSync(br.bytes).toString()).toBe(VENDOR);
    expect(br.bytes.length).toBeLessThan(VENDOR.length / 4);

    const gz = await get('/assets/style-5e6f.css?v=1', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(gunzipSync(gz.bytes).toString()).toBe(STYLE);

    for (const refused of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get('/assets/vendor-3c4d.js', refused);
      expect(plain.headers['content-encoding'], refused).toBeUndefined();
      expect(plain.headers.vary, refused).toMatch(/Accept-Encoding/i);
      expect(plain.body, refused).toBe(VENDOR);
    }
    // Files too small to gain have no copy and go as they are; a missing file stays a 404.
    expect((await get('/assets/app-1a2b.js', 'br')).headers['content-encoding']).toBeUndefined();
    expect((await get('/assets/gone-9z.js', 'br')).status).toBe(404);
    expect((await get('/assets/..%2f..%2fetc%2fpasswd.js', 'br')).status).toBe(404);
  });
});

describe('console under SAC_BASE_PATH and without a build', () => {
  it('points <base href> at the base path and serves routes under it', async () => {
    const sac = await startTestSac('sqlite', { SAC_WEB_DIR: fakeBuild(), SAC_BASE_PATH: '/sac' });
    try {
      const res = await fetch(`${sac.url}/sac/events`, { headers: NAVIGATE });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<base href="/sac/">');
      expect((await fetch(`${sac.url}/sac/assets/app-1a2b.js`)).status).toBe(200);
    } finally {
      await sac.close();
    }
  });

  it('answers 503 with a page that says to run npm run build:web', async () => {
    const sac = await startTestSac('sqlite', { SAC_WEB_DIR: tempDir('sac-noweb-') });
    try {
      const res = await fetch(`${sac.url}/`, { headers: NAVIGATE });
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build:web');
      expect((await fetch(`${sac.url}/health`)).status).toBe(200);
    } finally {
      await sac.close();
    }
  });
});
