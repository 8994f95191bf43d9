import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AppError, errorSummary } from '../errors.js';

/** Seconds an agent or client is told to wait when SAC is overloaded or its store is down. */
export const RETRY_AFTER_SECONDS = 1;

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** Status code of an AppError: its own for user errors, 503 for operational, 500 for bugs. */
export function statusOf(err: AppError): number {
  if (err.kind === 'operational') return 503;
  if (err.kind === 'unexpected') return 500;
  return err.status ?? 400;
}

/** Writes a JSON body with the given status; `extra` merges top-level fields next to the body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * The one place errors become HTTP answers. Never leaks a stack: unknown errors are logged and
 * answered with a generic 500; operational ones with 503 and Retry-After.
 */
export function sendError(res: ServerResponse, err: unknown, logger: Logger): void {
  if (err instanceof AppError) {
    const status = statusOf(err);
    if (err.kind === 'operational') logger.warn({ code: err.code, err: errorSummary(err.cause ?? err) }, 'request failed');
    else if (err.kind === 'unexpected') logger.error({ code: err.code, err: errorSummary(err.cause ?? err) }, 'request failed');
    const headers: Record<string, string> = status === 503 ? { 'Retry-After': String(RETRY_AFTER_SECONDS) } : {};
    const retryAfter = (err.details as { retry_after_s?: unknown } | undefined)?.retry_after_s;
    if (status === 429 && typeof retryAfter === 'number') headers['Retry-After'] = String(retryAfter);
    sendJson(res, status, errorBody(err.code, err.message, err.details), headers);
    return;
  }
  logger.error({ err: errorSummary(err) }, 'unexpected error');
  sendJson(res, 500, errorBody('internal/unexpected', 'Internal error'));
}
