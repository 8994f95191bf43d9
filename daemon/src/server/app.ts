import { randomUUID } from 'node:crypto';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import {
  type AnyOperation,
  type Authenticator,
  bearerToken,
  clientAddress,
  errorBody,
  knownTrpcError,
  mapError,
  operationRoutes,
  statusOf,
  requestSession,
  sameSecret,
  sendError,
  sendJson,
  sessionCookie,
} from '../http/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { readStoreCounts, type DaemonValues, type Metrics } from '../metrics.js';
import type { GeoStatus, JobState } from '../../../shared/src/index.js';
import type { Store } from '../store/index.js';
import type { AppRouter } from './app-router.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { openApiRoute } from './openapi.js';

export interface AppDeps {
  store: Store;
  metrics: Metrics;
  logger: Logger;
  version: string;
  startedMs: number;
  clock: Clock;
  /** This daemon's values /metrics reads when scraped (the store's counts are read here). */
  daemonMetrics: () => DaemonValues;
  /** Why ingest cannot commit right now (the ingest thread restarting), or null. */
  ingestProblem: () => string | null;
  /** Whether events' source addresses are enriched (shown, never a reason for 503: enrichment is fail-open). */
  enrichment: () => GeoStatus;
  /** This daemon's jobs as their leader ran them (a job failing on every tick shows, still 200). */
  jobs: () => JobState[];
  authenticator: Authenticator;
  trpcRouter: AppRouter;
  /** The console operations: their REST routes are mounted after `routes`, their OpenAPI entries served. */
  operations: readonly AnyOperation[];
  /** Hand-written REST routers, mounted at the root in order (each declares its own /api/v1/... paths). */
  routes: express.Router[];
  /** Who reads /metrics: anyone, or an admin session / the scraper's token. */
  metricsAccess: 'admin' | 'public';
  metricsToken?: string;
}

const HEALTH_TIMEOUT_MS = 2000;
/** Calls in one tRPC batch: the console batches a screen's few queries; more is abuse (a batch of sign-ins). */
const TRPC_MAX_BATCH = 16;
const TRPC_MAX_BODY_BYTES = 1024 * 1024;

function withTimeout<T>(clock: Clock, promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (v) => {
        timer.cancel();
        resolve(v);
      },
      (e: unknown) => {
        timer.cancel();
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/** The Express application for everything except the ingest hot path. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  /** A console user's token sees why jobs fail; anyone else only that they do. Never slower than the health timeout. */
  const jobsFor = async (req: Request): Promise<JobState[]> => {
    const user = await withTimeout(deps.clock, requestSession(req, deps.authenticator), HEALTH_TIMEOUT_MS).catch(() => null);
    return user ? deps.jobs() : deps.jobs().map(({ last_failure, ...job }) => ({ ...job, last_failure: last_failure && { at: last_failure.at } }));
  };
  const health = async (req: Request, res: Response) => {
    const base = {
      version: deps.version,
      store: deps.store.kind,
      uptime_s: Math.round((deps.clock.now() - deps.startedMs) / 1000),
      enrichment: deps.enrichment(),
      jobs: await jobsFor(req),
    };
    try {
      await withTimeout(deps.clock, deps.store.ping(), HEALTH_TIMEOUT_MS);
    } catch {
      sendJson(res, 503, { status: 'degraded', problem: 'the store does not answer', ...base }, { 'Retry-After': '5' });
      return;
    }
    const problem = deps.ingestProblem();
    if (problem) sendJson(res, 503, { status: 'degraded', problem, ...base }, { 'Retry-After': '5' });
    else sendJson(res, 200, { status: 'ok', ...base });
  };
  app.get('/health', health);
  app.get('/healthz', health);
  app.get('/api/v1/openapi.json', openApiRoute(deps.version, deps.operations));
  // Metrics name users, hosts and queue depths: not for whoever reaches the port, unless configured so.
  app.get('/metrics', async (req, res, next) => {
    try {
      if (deps.metricsAccess !== 'public') {
        const token = bearerToken(req);
        const scraper = token !== null && deps.metricsToken !== undefined && sameSecret(token, deps.metricsToken);
        if (!scraper) {
          const user = (await requestSession(req, deps.authenticator))?.user;
          if (!user) throw new AppError('auth/unauthorized', 'Sign in as an admin or send the metrics token');
          if (user.role !== 'admin') throw new AppError('auth/forbidden', 'Admin role required');
        }
      }
      const store = await withTimeout(deps.clock, readStoreCounts(deps.store), HEALTH_TIMEOUT_MS).catch(() => null);
      const text = await deps.metrics.render({ ...deps.daemonMetrics(), store });
      res.type(deps.metrics.contentType).send(text);
    } catch (err) {
      next(err);
    }
  });

  app.use(
    '/trpc',
    // tRPC also reads form-data and octet-stream bodies itself, without express.json's limit:
    // the console sends JSON only, so anything else with a body is refused before it is read.
    (req: Request, res: Response, next: NextFunction) => {
      const hasBody = req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
      if (hasBody && !req.is('application/json')) {
        sendJson(res, 415, errorBody('request/unsupported_media_type', 'tRPC calls take application/json bodies only'));
        return;
      }
      next();
    },
    express.json({ limit: TRPC_MAX_BODY_BYTES }),
    createExpressMiddleware({
      router: deps.trpcRouter,
      maxBatchSize: TRPC_MAX_BATCH,
      maxBodySize: TRPC_MAX_BODY_BYTES,
      createContext: async ({ req, res }) => {
        let session: Awaited<ReturnType<typeof requestSession>> = null;
        let refused: AppError | null = null;
        try {
          session = await requestSession(req, deps.authenticator);
        } catch (err) {
          if (!(err instanceof AppError && statusOf(err) === 403)) throw knownTrpcError(err) ?? err;
          refused = err;
        }
        return {
          token: session?.token ?? null,
          user: session?.user ?? null,
          ip: clientAddress(req),
          requestId: randomUUID(),
          cookie: sessionCookie(req, res),
          refused,
        };
      },
      onError: ({ error, path }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') deps.logger.error({ path, err: { message: error.message } }, 'tRPC call failed');
      },
      // A throttled or unavailable tRPC answer says when to retry, as the REST one does.
      responseMeta: ({ errors }) => {
        const waits = errors.flatMap((e) => {
          const wait = e.cause instanceof AppError ? mapError(e.cause).headers['Retry-After'] : undefined;
          return wait === undefined ? [] : [Number(wait)];
        });
        return waits.length > 0 ? { headers: { 'Retry-After': String(Math.max(...waits)) } } : {};
      },
    }),
  );
  // Agents' `POST /api/v1/events` is answered before Express (server.ts).
  app.use(methodNotAllowed(app, { '/api/v1/events': ['POST'] }));
  app.use(express.json({ limit: '1mb' }));
  for (const routes of deps.routes) app.use(routes);
  app.use(operationRoutes(deps.operations, deps.authenticator));

  app.use((_req, res) => sendJson(res, 404, errorBody('route/not_found', 'No such route')));
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large') return sendJson(res, 413, errorBody('request/too_large', 'Body too large'));
    // The agent treats 422 as final and anything else as a failure it logs; malformed agent input is final.
    if (e.type === 'entity.parse.failed' && req.path.startsWith('/api/v1/agent/')) {
      return sendJson(res, 422, errorBody('command/invalid_request', 'Body is not valid JSON'));
    }
    if (e.type === 'entity.parse.failed') return sendJson(res, 400, errorBody('request/invalid_json', 'Body is not valid JSON'));
    sendError(res, err, deps.logger);
  });
  return app;
}
