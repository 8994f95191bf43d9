import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { mapError } from './error-map.js';

/** Writes a JSON body with the given status and extra headers. */
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

/** Answers an error as `mapError()` says, logging operational and unexpected failures. */
export function sendError(res: ServerResponse, err: unknown, logger: Logger): void {
  const mapped = mapError(err);
  if (mapped.log) logger[mapped.log](mapped.logFields, 'request failed');
  sendJson(res, mapped.status, mapped.body, mapped.headers);
}
