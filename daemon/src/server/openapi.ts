import type { Request, Response } from 'express';
import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { EnrollmentCodeCreateSchema, EventSchema } from '../../../shared/src/index.js';
import { type AnyOperation, ErrorBodySchema, errorResponse, jsonContent, openApiOperation, operationPaths, trpcOnlyOperations } from '../http/index.js';

/**
 * The REST API's OpenAPI 3.1 document, generated from the same zod schemas that validate the
 * requests (zod-openapi): served at `/api/v1/openapi.json` and fuzzed by schemathesis in the tests.
 * Answers whose shape has no zod schema are documented as JSON objects.
 */

const Health = z.looseObject({ status: z.enum(['ok', 'degraded']), version: z.string().optional() });
const IngestCreated = z.object({ event_id: z.string(), status: z.literal('created') });
const IngestDuplicate = ErrorBodySchema.extend({ event_id: z.string() });

const json = jsonContent;
const error = errorResponse;
const op = openApiOperation;

/** `GET /api/v1/openapi.json`: public like `/health` — it describes the API, it holds no data. Built once. */
export function openApiRoute(version: string, operations: readonly AnyOperation[]): (req: Request, res: Response) => void {
  let body: string | null = null;
  return (_req, res) => {
    body ??= JSON.stringify(buildOpenApiDocument(version, operations));
    res.type('application/json').send(body);
  };
}

/** Documented, but not fuzzed: the stream never ends (SSE); signing out would end the fuzzer's own session. */
export const NOT_FUZZED_PATHS = ['/api/v1/stream/events', '/api/v1/auth/logout'] as const;

export function buildOpenApiDocument(version: string, operations: readonly AnyOperation[]): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'SAC — Security Alert Center REST API', version },
    'x-trpc-only': trpcOnlyOperations(operations),
    components: {
      securitySchemes: {
        session: { type: 'http', scheme: 'bearer', description: 'Console session token from POST /api/v1/auth/login' },
        agentKey: { type: 'http', scheme: 'bearer', description: 'Agent API key' },
      },
    },
    paths: withOperations(operations, {
      '/api/v1/events': {
        post: {
          summary: 'Ingest one event (agents)',
          security: [{ agentKey: [] }],
          requestParams: { header: z.object({ 'idempotency-key': z.string().optional() }) },
          requestBody: { required: true, ...json(EventSchema) },
          responses: {
            '201': { description: 'Stored', ...json(IngestCreated) },
            '401': error('No valid agent API key'),
            '403': error('The key is bound to another host or agent installation'),
            '409': { description: 'This event_id is already stored', ...json(IngestDuplicate) },
            '413': error('Body too large'),
            '422': error('Not an event of schema 1.0'),
            '503': error('Store unavailable or ingest queue full; retry after Retry-After'),
          },
        },
      },
      '/health': { get: { summary: 'Health', security: [], responses: { '200': { description: 'Healthy', ...json(Health) }, '503': { description: 'Degraded', ...json(Health) } } } },
      '/healthz': { get: { summary: 'Health', security: [], responses: { '200': { description: 'Healthy', ...json(Health) }, '503': { description: 'Degraded', ...json(Health) } } } },
      '/api/v1/stream/events': {
        get: {
          summary: 'Live stream (server-sent events)',
          security: [{ session: [] }],
          requestParams: { query: z.object({ ticket: z.string().optional(), last_event_id: z.string().optional() }) },
          responses: {
            '200': { description: 'An endless event stream', content: { 'text/event-stream': { schema: z.string() } } },
            '401': error('No valid token or ticket'),
            '429': error('Too many open streams of this user'),
            '503': error('Too many open streams on this server'),
          },
        },
      },
      '/api/v1/mobile/enrollment-codes': {
        post: op({ summary: 'Issue an enrollment code (with its absolute enroll URL)', role: 'admin', body: EnrollmentCodeCreateSchema, ok: ['201', 'The code'], errors: { '404': 'No such user', '409': 'The user is not active' } }),
      },
    }),
  });
}

/** The hand-written routes' paths with the declared operations' added (a path may hold both: `/api/v1/events`). */
function withOperations(operations: readonly AnyOperation[], handWritten: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const paths = { ...handWritten };
  for (const [path, item] of Object.entries(operationPaths(operations))) paths[path] = { ...paths[path], ...item };
  return paths;
}
