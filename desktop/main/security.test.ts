import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileResponseHeaders, proxyRequestHeaders, routeAppRequest } from './app-protocol.js';
import { CONTENT_SECURITY_POLICY, isAllowedNavigation } from './security.js';

describe('navigation guard', () => {
  it.each(['app://sac/index.html', 'app://sac/', 'app://sac/index.html#/events?type=rdp'])('allows the app page %s', (url) => {
    expect(isAllowedNavigation(url)).toBe(true);
  });
  it.each([
    'https://evil.example/',
    'http://127.0.0.1:8080/',
    'file:///etc/passwd',
    'app://other/index.html',
    'app://sac.evil.example/',
    'javascript:alert(1)',
    'data:text/html,<script>1</script>',
    'not a url',
    // API answers are never shown as pages, however the path is spelled.
    'app://sac/api/v1/auth/me',
    'app://sac/trpc/auth.me',
    'app://sac/API/v1/x',
    'app://sac/%61pi/v1/x',
    'app://sac//api/v1/x',
    'app://sac/./api/v1/x',
    'app://sac/assets/../api/v1/x',
  ])('blocks %s', (url) => {
    expect(isAllowedNavigation(url)).toBe(false);
  });
});

describe('app:// request routing', () => {
  const dir = path.resolve('/opt/sac/renderer');
  it('serves renderer files and index.html for /', () => {
    expect(routeAppRequest('app://sac/', dir, null)).toEqual({ kind: 'file', file: path.join(dir, 'index.html') });
    expect(routeAppRequest('app://sac/assets/index-1.js', dir, null)).toEqual({ kind: 'file', file: path.join(dir, 'assets/index-1.js') });
  });
  it('never leaves the renderer folder', () => {
    for (const url of ['app://sac/..%2f..%2fetc/passwd', 'app://sac/assets/..%2f..%2f..%2fsecret', 'app://sac/%E0%A4%A', 'app://sac/..%5c..%5cwin.ini']) {
      const route = routeAppRequest(url, dir, null);
      expect(route.kind === 'not_found' || (route.kind === 'file' && route.file.startsWith(dir + path.sep)), url).toBe(true);
    }
    // The URL parser itself folds dot segments: this stays inside the folder.
    expect(routeAppRequest('app://sac/%2e%2e/%2e%2e/etc/passwd', dir, null)).toEqual({ kind: 'file', file: path.join(dir, 'etc/passwd') });
  });
  it('forwards /api and /trpc to the active daemon, keeping its path prefix and the query', () => {
    expect(routeAppRequest('app://sac/api/v1/events?type=rdp.login', dir, 'https://h.example/sac')).toEqual({
      kind: 'proxy',
      url: 'https://h.example/sac/api/v1/events?type=rdp.login',
    });
    expect(routeAppRequest('app://sac/trpc/events.list,hosts.list?batch=1', dir, 'http://127.0.0.1:8080').kind).toBe('proxy');
    expect(routeAppRequest('app://sac/api/v1/auth/me', dir, null)).toEqual({ kind: 'no_connection' });
    expect(routeAppRequest('app://sac/apiary.js', dir, 'http://x').kind).toBe('file');
  });
  it('forwards the normalised path, so the daemon routes exactly what was checked', () => {
    const daemon = 'https://h.example';
    expect(routeAppRequest('app://sac/api/v1/x/..%2f..%2f..%2fadmin', dir, daemon)).toEqual({ kind: 'not_found' });
    expect(routeAppRequest('app://sac/api/v1/hosts/..%2fevents', dir, daemon)).toEqual({ kind: 'proxy', url: `${daemon}/api/v1/events` });
    expect(routeAppRequest('app://sac/api/v1/hosts/a%3Fb%23c', dir, daemon)).toEqual({ kind: 'proxy', url: `${daemon}/api/v1/hosts/a%3Fb%23c` });
    expect(routeAppRequest('app://sac/api%2fv1%2fevents', dir, daemon)).toEqual({ kind: 'proxy', url: `${daemon}/api/v1/events` });
    expect(routeAppRequest('app://sac/trpc/events.list,hosts.list?batch=1', dir, daemon)).toEqual({ kind: 'proxy', url: `${daemon}/trpc/events.list,hosts.list?batch=1` });
  });
  it('rejects other origins', () => {
    expect(routeAppRequest('app://other/index.html', dir, 'http://x').kind).toBe('not_found');
    expect(routeAppRequest('https://sac/index.html', dir, 'http://x').kind).toBe('not_found');
  });
  it('forwards only the headers the API needs', () => {
    const h = proxyRequestHeaders(new Headers({ Authorization: 'Bearer t', 'Content-Type': 'application/json', Origin: 'app://sac', Cookie: 'a=b', 'Last-Event-ID': '7' }));
    expect([...h.keys()].sort()).toEqual(['authorization', 'content-type', 'last-event-id']);
  });
  it('puts the CSP on every file and blocks other origins in it', () => {
    expect(fileResponseHeaders('/x/index.html')).toMatchObject({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
  });
});
