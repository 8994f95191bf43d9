import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { parseEvent, type ValidationIssue } from '../../../shared/src/index.js';
import type { ApiKeyService, KeyAgents, KeyBindingGuard } from '../apikeys/index.js';
import { AppError, errorSummary } from '../errors.js';
import { overloaded, type IngestService } from '../ingest/index.js';
import type { Metrics } from '../metrics.js';
import { apiKeyFromHeaders, clientAddress, errorBody, mapError, RETRY_AFTER_SECONDS, sendJson } from '../http/index.js';

/** Largest accepted request body. */
export const INGEST_BODY_LIMIT = 1024 * 1024;
const BOM = [0xef, 0xbb, 0xbf];

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

/**
 * `POST /api/v1/events`, served by node:http directly (the hot path): API key, body limit, BOM,
 * JSON, schema 1.0, Idempotency-Key, then group-committed storage. Answers follow the real
 * agent's rules: 201 created, 409 duplicate, 422 rejected for good, 401/413/503 otherwise —
 * never 200 or 204, which the agent would re-send forever.
 */
export function createIngestHandler(deps: {
  apiKeys: ApiKeyService;
  keyBinding: KeyBindingGuard;
  keyAgents: KeyAgents;
  ingest: IngestService;
  metrics: Metrics;
  logger: Logger;
}): (req: IncomingMessage, res: ServerResponse) => void {
  const { apiKeys, keyBinding, keyAgents, ingest, metrics, logger } = deps;

  const reject = (res: ServerResponse, reason: string, status: number, body: unknown, headers?: Record<string, string>) => {
    metrics.ingestRejected(reason, status);
    sendJson(res, status, body, headers);
  };

  const unprocessable = (res: ServerResponse, issues: ValidationIssue[], log: Record<string, unknown>) => {
    logger.info({ ...log, issues: issues.length, first: issues[0]?.path }, 'event rejected');
    reject(res, 'validation', 422, errorBody('event/validation_failed', 'The event does not match schema 1.0', issues));
  };

  return (req, res) => {
    const requestId = randomUUID();
    const ip = clientAddress(req);
    void (async () => {
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > INGEST_BODY_LIMIT) {
        res.setHeader('Connection', 'close');
        reject(res, 'too_large', 413, errorBody('request/too_large', `Body exceeds ${INGEST_BODY_LIMIT} bytes`));
        req.resume();
        return;
      }
      const presented = apiKeyFromHeaders(req.headers);
      const key = presented ? await apiKeys.verify(presented) : null;
      if (!key) {
        logger.warn({ req_id: requestId, ip, key_presented: presented !== null }, 'ingest unauthorized');
        reject(res, 'unauthorized', 401, errorBody('auth/unauthorized', 'A valid agent API key is required'));
        req.resume();
        return;
      }
      const log = { req_id: requestId, key_prefix: key.prefix, ip };
      if (ingest.overloaded) {
        // Shed before reading and parsing the body: under overload the answer must come in
        // milliseconds and cost as little as possible, so the accepted events keep their CPU.
        req.resume();
        throw overloaded();
      }

      let body: Buffer;
      try {
        body = await readBody(req, INGEST_BODY_LIMIT);
      } catch (err) {
        if (err instanceof BodyTooLarge) {
          res.setHeader('Connection', 'close');
          reject(res, 'too_large', 413, errorBody('request/too_large', `Body exceeds ${INGEST_BODY_LIMIT} bytes`));
          return;
        }
        throw err;
      }
      const start = body[0] === BOM[0] && body[1] === BOM[1] && body[2] === BOM[2] ? 3 : 0;
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString('utf8', start));
      } catch (err) {
        unprocessable(res, [{ path: '', message: `invalid JSON: ${(err as Error).message}` }], log);
        return;
      }
      const parsed = parseEvent(payload);
      if (!parsed.ok) {
        const eventId = (payload as { event_id?: unknown } | null)?.event_id;
        unprocessable(res, parsed.issues, { ...log, event_id: typeof eventId === 'string' ? eventId.slice(0, 64) : undefined });
        return;
      }
      const event = parsed.event;
      const idempotencyKey = req.headers['idempotency-key'];
      if (typeof idempotencyKey === 'string' && idempotencyKey.trim().toLowerCase() !== event.event_id) {
        unprocessable(res, [{ path: 'Idempotency-Key', message: 'header must equal the body event_id' }], {
          ...log,
          event_id: event.event_id,
        });
        return;
      }
      const binding = await keyBinding.check(key, event, ip);
      if (binding === 'refuse') {
        logger.warn({ ...log, event_id: event.event_id, hostname: event.host.hostname }, 'event refused: key bound to another host');
        const refused = mapError(new AppError('apikey/host_mismatch', 'This API key is bound to another host or agent installation'));
        reject(res, 'host_mismatch', refused.status, refused.body);
        return;
      }

      const outcome = await ingest.submit(event, { keyPrefix: key.prefix, requestId, clientIp: ip, flagged: binding === 'flag' });
      // Before the answer: the agent polls right after its first delivered event, and must not be refused.
      await keyAgents.sent(key, event);
      if (outcome === 'created') {
        metrics.ingestCreated();
        sendJson(res, 201, { event_id: event.event_id, status: 'created' });
      } else {
        metrics.ingestDuplicate();
        sendJson(res, 409, { ...errorBody('event/duplicate', 'An event with this event_id is already stored'), event_id: event.event_id });
      }
    })().catch((err: unknown) => {
      if (res.headersSent) return;
      const mapped = mapError(err);
      // This one event can never be stored: 422 makes the agent set it aside instead of re-sending it forever.
      if (mapped.status === 422) {
        reject(res, 'unprocessable', 422, mapped.body);
        return;
      }
      // Whatever else went wrong, the agent must spool and retry: 503, never 500 or 200.
      const code = err instanceof AppError ? err.code : 'ingest/unavailable';
      if (!(err instanceof AppError)) logger.error({ req_id: requestId, err: errorSummary(err) }, 'ingest failed');
      if (res.headersSent) return;
      reject(res, code === 'ingest/overloaded' ? 'overloaded' : 'unavailable', 503,
        errorBody(code, err instanceof AppError ? err.message : 'Ingest is unavailable; retry later'),
        { 'Retry-After': String(RETRY_AFTER_SECONDS) });
    });
  };
}
