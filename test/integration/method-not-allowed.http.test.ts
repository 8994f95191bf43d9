import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A URL for an OpenAPI path: each `{param}` becomes a sample id. */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'probe-id');
/** Whether an OpenAPI path template matches a URL path (a `{param}` is one segment). */
const matches = (template: string, path: string) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);
const params = (template: string) => (template.match(/\{/g) ?? []).length;

// Routing does not depend on the store: one daemon on SQLite.
describe('a method no route declares at a served path', () => {
  let sac: TestSac;
  let paths: Record<string, Record<string, unknown>>;
  beforeAll(async () => {
    sac = await startTestSac('sqlite');
    paths = (await api(sac, 'GET', '/api/v1/openapi.json')).body.paths;
  });
  afterAll(async () => {
    await sac?.close();
  });

  /** The methods the document declares for a URL path: its most specific matching templates' (`/x/active` over `/x/{id}`). */
  const documented = (path: string) => {
    const matching = Object.keys(paths).filter((template) => matches(template, path));
    const fewest = Math.min(...matching.map(params));
    return new Set(matching.filter((t) => params(t) === fewest).flatMap((t) => Object.keys(paths[t]).map((m) => m.toUpperCase())));
  };

  it('is answered 405 with an Allow header naming exactly the declared methods, on every documented path', async () => {
    const checked: string[] = [];
    for (const template of Object.keys(paths)) {
      const path = concrete(template);
      const declared = documented(path);
      const allow = [...declared, ...(declared.has('GET') ? ['HEAD'] : []), 'OPTIONS'].sort().join(', ');
      const options = await api(sac, 'OPTIONS', path);
      expect({ call: `OPTIONS ${path}`, status: options.status, allow: options.headers.get('allow') }).toEqual({ call: `OPTIONS ${path}`, status: 204, allow });
      for (const method of METHODS.filter((m) => !declared.has(m))) {
        const res = await api(sac, method, path);
        expect({ call: `${method} ${path}`, status: res.status, allow: res.headers.get('allow'), code: res.body?.error?.code }).toEqual({
          call: `${method} ${path}`,
          status: 405,
          allow,
          code: 'route/method_not_allowed',
        });
        checked.push(`${method} ${path}`);
      }
    }
    // The document has paths that serve some methods and not others (operations and hand-written routes both).
    expect(checked).toEqual(expect.arrayContaining(['PUT /api/v1/maintenance-windows/active', 'PUT /api/v1/events', 'POST /api/v1/problems/probe-id', 'DELETE /api/v1/agents/versions', 'PATCH /health']));
  });

  it('still answers 404 on a path no route serves', async () => {
    const res = await api(sac, 'POST', '/api/v1/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
  });
});
