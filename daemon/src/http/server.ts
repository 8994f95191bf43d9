import http from 'node:http';
import type { Express } from 'express';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The HTTP front: `POST /api/v1/events` goes straight to the lean ingest handler, everything
 * else to the Express app. With a base path, routes answer both under it and at the root.
 */
export function createHttpServer(opts: { app: Express; ingest: Handler; basePath: string }): http.Server {
  const { app, ingest, basePath } = opts;
  const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000 }, (req, res) => {
    if (basePath && req.url && (req.url === basePath || req.url.startsWith(`${basePath}/`) || req.url.startsWith(`${basePath}?`))) {
      req.url = req.url.slice(basePath.length) || '/';
    }
    if (req.method === 'POST' && req.url !== undefined && (req.url === '/api/v1/events' || req.url.startsWith('/api/v1/events?'))) {
      ingest(req, res);
      return;
    }
    app(req, res);
  });
  server.headersTimeout = 20_000;
  return server;
}
