import type { Request, Response } from 'express';
import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import {
  ApiKeyCreateSchema,
  AuditQuerySchema,
  EventListQuerySchema,
  EventSchema,
  HostListQuerySchema,
  HostPinSchema,
  LoginRequestSchema,
  PasswordChangeSchema,
  DashboardRangeQuerySchema,
  EnrollmentCodeCreateSchema,
  UserCreateSchema,
  UserPatchSchema,
} from '../../../shared/src/index.js';
import { type AnyOperation, ErrorBodySchema, errorResponse, jsonContent, openApiOperation, operationPaths, UI_ERRORS } from '../http/index.js';

/**
 * The REST API's OpenAPI 3.1 document, generated from the same zod schemas that validate the
 * requests (zod-openapi): served at `/api/v1/openapi.json` and fuzzed by schemathesis in the tests.
 * Answers whose shape has no zod schema are documented as JSON objects.
 */

const Id = z.object({ id: z.string().min(1).max(64) });
const Category = z.object({ category: z.string().min(1).max(64) });
const SettingsValues = z.record(z.string(), z.unknown());
const ReportListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  before_ms: z.coerce.number().int().optional(),
});
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

/** Operations whose answer never ends (SSE) or is not JSON: documented, but not fuzzed. */
export const NOT_FUZZED_PATHS = ['/api/v1/stream/events'] as const;

export function buildOpenApiDocument(version: string, operations: readonly AnyOperation[]): ReturnType<typeof createDocument> {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'SAC — Security Alert Center REST API', version },
    components: {
      securitySchemes: {
        session: { type: 'http', scheme: 'bearer', description: 'Console session token from POST /api/v1/auth/login' },
        agentKey: { type: 'http', scheme: 'bearer', description: 'Agent API key' },
      },
    },
    paths: withOperations(operationPaths(operations), {
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
        get: op({ summary: 'List events', role: 'operator', query: EventListQuerySchema, ok: ['200', 'A page of events'] }),
      },
      '/api/v1/events/{id}': { get: op({ summary: 'One event with its payload', role: 'operator', path: Id, ok: ['200', 'The event'] }) },
      '/health': { get: { summary: 'Health', security: [], responses: { '200': { description: 'Healthy', ...json(Health) }, '503': { description: 'Degraded', ...json(Health) } } } },
      '/healthz': { get: { summary: 'Health', security: [], responses: { '200': { description: 'Healthy', ...json(Health) }, '503': { description: 'Degraded', ...json(Health) } } } },
      '/api/v1/auth/login': {
        post: op({ summary: 'Sign in', role: 'public', body: LoginRequestSchema, ok: ['200', 'A session token'], errors: { '503': 'Sign-in queue full; retry later' } }),
      },
      '/api/v1/auth/me': { get: op({ summary: 'The signed-in user', role: 'operator', ok: ['200', 'The user'] }) },
      '/api/v1/auth/renew': { post: op({ summary: 'Renew the session token', role: 'operator', ok: ['200', 'A new session token'] }) },
      '/api/v1/auth/password': { post: op({ summary: 'Change own password', role: 'operator', body: PasswordChangeSchema, ok: ['200', 'A new session token'] }) },
      '/api/v1/users': {
        get: op({ summary: 'List users', role: 'admin', ok: ['200', 'Users'] }),
        post: op({ summary: 'Create a user', role: 'admin', body: UserCreateSchema, ok: ['201', 'The user'], errors: { '409': 'Username taken' } }),
      },
      '/api/v1/users/{id}': {
        patch: op({ summary: 'Change a user', role: 'admin', path: Id, body: UserPatchSchema, ok: ['200', 'The user'], errors: { '409': 'Would leave no active admin' } }),
        delete: op({ summary: 'Delete a user', role: 'admin', path: Id, ok: ['204', 'Deleted'], errors: { '409': 'Would leave no active admin' } }),
      },
      '/api/v1/api-keys': {
        get: op({ summary: 'List agent API keys', role: 'admin', ok: ['200', 'Keys, never their secrets'] }),
        post: op({ summary: 'Create an agent API key', role: 'admin', body: ApiKeyCreateSchema, ok: ['201', 'The key, its secret shown once'] }),
      },
      '/api/v1/api-keys/{id}': { delete: op({ summary: 'Revoke an agent API key', role: 'admin', path: Id, ok: ['204', 'Revoked'] }) },
      '/api/v1/settings': { get: op({ summary: 'All settings (secrets masked)', role: 'admin', ok: ['200', 'Settings'] }) },
      '/api/v1/settings/{category}': {
        get: op({ summary: 'One settings category', role: 'admin', path: Category, ok: ['200', 'The category'] }),
        patch: op({ summary: 'Change fields of a settings category', role: 'admin', path: Category, body: SettingsValues, ok: ['200', 'The category'] }),
      },
      '/api/v1/audit': { get: op({ summary: 'The audit log', role: 'admin', query: AuditQuerySchema, ok: ['200', 'Entries, newest first'] }) },
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
      '/api/v1/hosts': { get: op({ summary: 'List hosts', role: 'operator', query: HostListQuerySchema, ok: ['200', 'Hosts'] }) },
      '/api/v1/hosts/{id}': {
        get: op({ summary: 'One host', role: 'operator', path: Id, ok: ['200', 'The host'] }),
        delete: op({ summary: 'Delete a host with its events and problems', role: 'admin', path: Id, ok: ['204', 'Deleted'] }),
      },
      '/api/v1/hosts/{id}/action-address': {
        put: op({ summary: 'Pin where remote actions reach a host (address, WinRM HTTPS name)', role: 'admin', path: Id, body: HostPinSchema, ok: ['200', 'The host'], errors: { '409': 'The address is pinned to another host' } }),
        delete: op({ summary: 'Unpin a host’s action address', role: 'admin', path: Id, ok: ['200', 'The host'] }),
      },
      '/api/v1/dashboards/summary': { get: op({ summary: 'Dashboard summary of a time range (default the last 24 h)', role: 'operator', query: DashboardRangeQuerySchema, ok: ['200', 'The summary'] }) },
      '/api/v1/reports': {
        get: op({ summary: 'List daily reports', role: 'operator', query: ReportListQuery, ok: ['200', 'Reports'] }),
        post: op({ summary: 'Generate and send the daily report now', role: 'admin', ok: ['201', 'The report and the channels it went to'] }),
      },
      '/api/v1/reports/{id}': { get: op({ summary: 'One daily report', role: 'operator', path: Id, ok: ['200', 'The report'] }) },
      '/api/v1/reports/{id}/html': {
        get: {
          summary: 'One daily report as HTML',
          security: [{ session: [] }],
          requestParams: { path: Id },
          responses: {
            '200': { description: 'The report', content: { 'text/html': { schema: z.string() } } },
            ...UI_ERRORS,
            '404': error('No such report'),
          },
        },
      },
      '/api/v1/mobile/enrollment-codes': {
        post: op({ summary: 'Issue an enrollment code (with its absolute enroll URL)', role: 'admin', body: EnrollmentCodeCreateSchema, ok: ['201', 'The code'], errors: { '404': 'No such user', '409': 'The user is not active' } }),
      },
    }),
  });
}

/** The hand-written routes' path items with the declared operations' methods at the same paths. */
function withOperations(declared: ZodOpenApiPathsObject, handWritten: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const paths = { ...declared };
  for (const [path, item] of Object.entries(handWritten)) paths[path] = { ...paths[path], ...item };
  return paths;
}
