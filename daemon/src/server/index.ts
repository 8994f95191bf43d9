/**
 * The daemon's HTTP server assembled: the Express app (health, metrics, OpenAPI, tRPC, every
 * area's REST routes), the tRPC app router over the areas' routers, the ingest hot path, the
 * console's web build, and the Node server with its Host allow-list. Only the composition root
 * (`sac.ts`) imports it; the plumbing the areas share is `http/`.
 */
export { createApp, type AppDeps } from './app.js';
export { appOperations, createAppRouter, type AppOperations, type AppRouter, type ReadServices, type RouterDeps } from './app-router.js';
export { createHttpServer } from './server.js';
export { hostAllowList } from './host-allow.js';
export { createIngestHandler } from './ingest.handler.js';
export { createWebRoutes, defaultWebDir } from './web.routes.js';
