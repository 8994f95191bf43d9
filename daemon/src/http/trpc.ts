import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import type { SessionUser } from '../../../shared/src/index.js';
import type { SessionCookie } from './session-cookie.js';
import { AppError, storageFault, storeUnavailable } from '../errors.js';
import { statusOf } from './error-map.js';
import { invalidRequest } from './validate.js';

/** What every tRPC call knows about its caller. */
export interface TrpcContext {
  user: SessionUser | null;
  /** The bearer token the call came with (renewal and sign-out act on its session). */
  token: string | null;
  ip: string | undefined;
  requestId: string;
  cookie: SessionCookie;
  /** Why the session the call came with is refused (a cookie-authenticated write failing the CSRF check); public procedures still run. */
  refused: AppError | null;
}

const TRPC_CODE_BY_STATUS: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  504: 'GATEWAY_TIMEOUT',
};

/** Maps an AppError to the tRPC error carrying its code (`data.appCode`) and details. */
export function toTrpcError(err: AppError): TRPCError {
  const status = statusOf(err);
  const code = status === 503 ? 'SERVICE_UNAVAILABLE' : status === 500 ? 'INTERNAL_SERVER_ERROR' : (TRPC_CODE_BY_STATUS[status] ?? 'BAD_REQUEST');
  return new TRPCError({ code, message: err.message, cause: err });
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    // An input the procedure's schema refused says what REST says for the same body.
    const app = error.cause instanceof AppError ? error.cause : error.cause instanceof ZodError ? invalidRequest(error.cause) : null;
    return {
      ...shape,
      // Never leak stacks or internals: unexpected errors keep a generic message.
      message: error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal error' : (app?.message ?? shape.message),
      data: { code: shape.data.code, httpStatus: shape.data.httpStatus, appCode: app?.code ?? null, details: app?.details ?? null },
    };
  },
});

/**
 * The tRPC error for a failure SAC can name: an AppError, or a store that cannot be reached or
 * cannot write (an outage: 503, retry — not an internal error). Null for anything else.
 */
export function knownTrpcError(err: unknown): TRPCError | null {
  if (err instanceof AppError) return toTrpcError(err);
  if (storageFault(err) !== null) return toTrpcError(storeUnavailable(err));
  return null;
}

/** Wraps every procedure so an AppError thrown by a service becomes the matching tRPC error. */
const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const known = knownTrpcError(result.error.cause);
  if (known) throw known;
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** No authentication (login, health). */
export const publicProcedure = t.procedure.use(mapAppErrors);

/** Any signed-in, active console user: admin or monitor. */
export const operatorProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.refused) throw toTrpcError(ctx.refused);
  if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first' });
  return next({ ctx: { ...ctx, user: ctx.user } });
});

/** Admins only. */
export const adminProcedure = operatorProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== 'admin') throw new TRPCError({ code: 'FORBIDDEN', message: 'Admin role required' });
  return next({ ctx });
});
