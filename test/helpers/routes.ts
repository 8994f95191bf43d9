import type { Express } from 'express';
import type { AnyRouter } from '@trpc/server';

interface LayerLike {
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: LayerLike[] };
}

/**
 * Every REST route of the Express app as `METHOD /path` (Express 5 patterns such as
 * `/api/v1/users/:id`), walking mounted routers. Middleware mounts without routes (tRPC) are left out.
 */
export function restRoutes(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: LayerLike[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) if (method !== '_all') out.push(`${method.toUpperCase()} ${prefix}${layer.route.path}`);
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, prefix + (layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : ''));
      }
    }
  };
  walk((app as unknown as { router: { stack: LayerLike[] } }).router.stack, '');
  return [...new Set(out)].sort();
}

/** Every tRPC procedure as `path` → `query` | `mutation` | `subscription`. */
export function trpcProcedures(router: AnyRouter): Record<string, string> {
  const procedures = router._def.procedures as Record<string, { _def: { type: string } }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, p]) => [path, p._def.type]));
}
