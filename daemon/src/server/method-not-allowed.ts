import type express from 'express';
import type { Request, Response, NextFunction } from 'express';
import { errorBody, sendJson } from '../http/index.js';

/** The part of an Express router layer read here: a route's path and methods, or a mounted router's stack. */
interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
  match(path: string): boolean;
}

/** A route path's `:param` segments. */
const paramCount = (path: string) => path.split('/').filter((s) => s.startsWith(':')).length;

/**
 * Routes of the app matching `path`, walking mounted routers; RegExp routes (the console's
 * navigation fallback) do not count.
 */
function matchingRoutes(stack: RouterLayer[], path: string, into: { path: string; methods: Record<string, boolean> }[]): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path === 'string' && layer.match(path)) into.push({ path: layer.route.path, methods: layer.route.methods });
    } else if (layer.handle.stack) {
      matchingRoutes(layer.handle.stack, path, into);
    }
  }
}

/**
 * Methods the app answers at `path`: those of its most specific matching routes (fewest params),
 * so `/maintenance-windows/active` is its own resource, not also `/maintenance-windows/:id`.
 */
function routeMethods(stack: RouterLayer[], path: string, into: Set<string>): void {
  const routes: { path: string; methods: Record<string, boolean> }[] = [];
  matchingRoutes(stack, path, routes);
  const fewest = Math.min(...routes.map((r) => paramCount(r.path)));
  for (const route of routes.filter((r) => paramCount(r.path) === fewest)) {
    for (const [method, on] of Object.entries(route.methods)) if (on && method !== '_all') into.add(method.toUpperCase());
  }
}

/**
 * `Allow` for a path some route serves, read from the app's own routers (the declared operations
 * and the hand-written routes alike) plus `outside`, routes served before Express (the ingest hot
 * path): OPTIONS is answered 204 with it, a method no route declares there 405 with it. Other
 * requests pass. Mount it before the routes (it reads them when a request comes).
 */
export function methodNotAllowed(app: express.Express, outside: Readonly<Record<string, readonly string[]>>) {
  const stack = (app as unknown as { router: { stack: RouterLayer[] } }).router.stack;
  return (req: Request, res: Response, next: NextFunction) => {
    const methods = new Set<string>(outside[req.path] ?? []);
    routeMethods(stack, req.path, methods);
    if (methods.has('GET')) methods.add('HEAD');
    if (methods.size === 0 || methods.has(req.method)) return next();
    const allow = [...methods, 'OPTIONS'].sort().join(', ');
    if (req.method === 'OPTIONS') return void res.status(204).set('Allow', allow).end();
    sendJson(res, 405, errorBody('route/method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`), { Allow: allow });
  };
}
