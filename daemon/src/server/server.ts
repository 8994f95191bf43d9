import http from 'node:http';
import type { Express } from 'express';
import { errorBody, recordClientAddress, sendJson } from '../http/index.js';
import type { TrustedProxies } from '../trusted-proxies.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/**
 * The HTTP front: `POST /api/v1/events` goes straight to the lean ingest handler, everything
 * else to the Express app. With a base path, routes answer both under it and at the root.
 * Every answer carries `X-Content-Type-Options: nosniff`; a `Host` the allow-list refuses gets
 * 421 before any route runs (see host-allow.ts). The client's address is settled first, for every
 * route (http/client-address.ts).
 */
export function createHttpServer(opts: {
  app: Express;
  ingest: Handler;
  basePath: string;
  allowHost: (host: string | undefined) => boolean;
  trustedProxies: TrustedProxies;
  /** Starts timing a request (the HTTP duration histogram); the returned function is called with the status once answered. */
  timeRequest: (req: http.IncomingMessage, ingestRoute: boolean) => (status: number) => void;
}): http.Server {
  const { app, ingest, basePath, allowHost, trustedProxies, timeRequest } = opts;
  const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000 }, (req, res) => {
    recordClientAddress(req, trustedProxies);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!allowHost(req.headers.host)) {
      sendJson(res, 421, errorBody('request/host_not_allowed', 'This host name is not served here (SAC_ALLOWED_HOSTS)'));
      return;
    }
    if (basePath && req.url && (req.url === basePath || req.url.startsWith(`${basePath}/`) || req.url.startsWith(`${basePath}?`))) {
      req.url = req.url.slice(basePath.length) || '/';
    }
    const isIngest = req.method === 'POST' && req.url !== undefined && (req.url === '/api/v1/events' || req.url.startsWith('/api/v1/events?'));
    const answered = timeRequest(req, isIngest);
    res.once('finish', () => answered(res.statusCode));
    if (isIngest) {
      ingest(req, res);
      return;
    }
    app(req, res);
  });
  server.headersTimeout = 20_000;
  return server;
}
