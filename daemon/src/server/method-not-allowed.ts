import type express from 'express';
import type { Request, Response, NextFunction } from 'express';
import { errorBody, sendJson } from '../http/index.js';

/** The part of an Express router layer read here: a route's path and methods, or a mounted router's stack. */
interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: { stack?: RouterLayer[] };
  match(path: string): boolean;
}

/** Methods the app's routes answer at `path`, walking mounted routers; RegExp routes (the console's navigation fallback) do not count. */
function routeMethods(stack: RouterLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== 'string' || !layer.match(path)) continue;
      for (const [method, on] of Object.entries(layer.route.methods)) if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (layer.handle.stack) {
      routeMethods(layer.handle.stack, path, into);
    }
  }
}

/**
 * The answer to a method no route declares at a path some route serves: 405 with `Allow`, read
 * from the app's own routers (the declared operations and the hand-written routes alike) plus
 * `outside`, routes served before Express (the ingest hot path). Mount it after every route.
 */
export function methodNotAllowed(app: express.Express, outside: Readonly<Record<string, readonly string[]>>) {
  const stack = (app as unknown as { router: { stack: RouterLayer[] } }).router.stack;
  return (req: Request, res: Response, next: NextFunction) => {
    const methods = new Set<string>(outside[req.path] ?? []);
    routeMethods(stack, req.path, methods);
    if (methods.size === 0 || methods.has(req.method)) return next();
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    sendJson(res, 405, errorBody('route/method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`), { Allow: allow });
  };
}
