import type { TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import type { SessionUser } from '../../../shared/src/index.js';
import type { Authenticator } from './authenticator.js';
import { clientAddress } from './client-address.js';
import { sendJson } from './http-errors.js';
import { currentToken, requireUser } from './rest-auth.js';
import { sessionCookie, type SessionCookie } from './session-cookie.js';
import { adminProcedure, operatorProcedure, publicProcedure } from './trpc.js';
import { parseInput, parseQuery } from './validate.js';

/**
 * One console operation, declared once in its feature's `<feature>.operations.ts`: the tRPC
 * procedure, the REST route, the OpenAPI entry and the RBAC expectation are all derived from it
 * (`operationsRouter`, `operationRoutes`, `operationPaths`, `restAccess`/`trpcAccess`).
 * The agents' endpoints, the live stream and the web build stay hand-written.
 */

/** Who may call: everyone, any signed-in console user (admin or monitor), or admins only. */
export type OperationRole = 'public' | 'operator' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type Kind<M extends HttpMethod> = M extends 'GET' ? 'query' : 'mutation';

/** Who calls an operation and from where, the same on REST and tRPC (the audit log's actor). */
export interface Caller<R extends OperationRole = OperationRole> {
  user: R extends 'public' ? SessionUser | null : SessionUser;
  ip: string | undefined;
  /** The console token the call came with, as a bearer token or the session cookie (renewal and sign-out act on its session). */
  token: string | null;
  /** The host ids a caller limited to host groups may see and act on; null or absent: every host (`withHostScope`). */
  scope?: ReadonlySet<string> | null;
  /** The web console's session cookie in the answer (sign-in sets it, sign-out clears it). */
  cookie: SessionCookie;
}

/** An operation's input: path, query and body fields of the REST call together, one object. */
type InputSchema = z.ZodObject | undefined;

/** The input of an operation on one record: `{ id }` (the `{id}` of its REST path). */
export const ByIdInput = z.strictObject({ id: z.string().min(1).max(128) });
type InputOf<S extends InputSchema> = S extends z.ZodObject ? z.output<S> : undefined;

/**
 * What a caller limited to host groups may reach through an operation (`withHostScope` applies it):
 * - `'none'`: the operation answers nothing about hosts (the caller's own account, phones, channels);
 * - `'filtered'`: the handler narrows its answer to `caller.scope` (lists);
 * - `{ host, notFound }`: it reads or acts on one record of one host; `host` finds that host's id
 *   (several when the action reaches another host too; null: no such record), and a record of a
 *   host outside the scope answers `notFound`, the same error as a record that does not exist.
 * An operation without one is refused to limited callers (403 `auth/out_of_scope`).
 */
export type OperationScope<I> =
  | 'none'
  | 'filtered'
  | { host: (input: I) => Promise<HostIds> | HostIds; notFound: (input: I) => Error };
/** The host (or hosts, all of which must be in scope) a record belongs to; null: no such record. */
type HostIds = string | readonly string[] | null;

export interface OperationSpec<Id extends string, R extends OperationRole, M extends HttpMethod, S extends InputSchema, O> {
  /** The tRPC path, `feature.verb` (`problems.acknowledge`). */
  id: Id;
  /** One line for the OpenAPI document. */
  summary: string;
  role: R;
  /** REST method; also the tRPC kind (GET: query, else mutation), for tRPC-only operations too. */
  method: M;
  /** REST path, OpenAPI style (`/api/v1/problems/{id}`); none: a tRPC-only operation. */
  path?: string;
  /** More REST paths answering the same (`/problems/{id}` beside `/api/v1/problems/{id}`). */
  aliases?: readonly string[];
  /** REST success status (default 200); a 204 answers no body. */
  status?: 200 | 201 | 204;
  /** A second REST success status the answer chooses: 201 when it created something, 202 when the work was queued. */
  alternative?: { status: 201 | 202; description: string; when: (output: Awaited<O>) => boolean };
  /** `false`: REST only (a phone's or a script's call the console never makes). Default true. */
  trpc?: boolean;
  /** The REST body is this one field of the input (`patch`), not the input's own fields. */
  restBody?: string;
  /** The REST answer wraps the output as `{ [envelope]: output }` (REST clients of old read it so). */
  envelope?: string;
  /** A REST answer that is not JSON (a report's HTML, with `trpc: false`): the output string as this type. */
  produces?: { contentType: string; headers?: Readonly<Record<string, string>> };
  input?: S;
  /** What a success answers (documented, and checked by the same-shape test). */
  output: z.ZodType;
  /** Error statuses of this operation besides the common ones, for the document. */
  errors?: Readonly<Record<string, string>>;
  /** What a caller limited to host groups may reach through it (see `OperationScope`); absent: refused to them. */
  scope?: OperationScope<InputOf<S>>;
  handler: (input: InputOf<S>, caller: Caller<R>) => Promise<O> | O;
}

export interface Operation<Id extends string = string, R extends OperationRole = OperationRole, M extends HttpMethod = HttpMethod, S extends InputSchema = InputSchema, O = unknown>
  extends OperationSpec<Id, R, M, S, O> {
  kind: Kind<M>;
}

export type AnyOperation = Operation<string, OperationRole, HttpMethod, any, any>;

/** Declares one operation (see the module comment). */
export function defineOperation<const Id extends string, R extends OperationRole, M extends HttpMethod, S extends InputSchema = undefined, O = unknown>(
  spec: OperationSpec<Id, R, M, S, O>,
): Operation<Id, R, M, S, O> {
  if (spec.restBody !== undefined && !spec.input?.shape[spec.restBody]) throw new Error(`${spec.id}: restBody names no input field`);
  return { ...spec, kind: (spec.method === 'GET' ? 'query' : 'mutation') as Kind<M> };
}

const hasRest = (op: AnyOperation): op is AnyOperation & { path: string } => op.path !== undefined;
const hasTrpc = (op: AnyOperation) => op.trpc !== false;
/** Every REST path of an operation, OpenAPI style. */
const restPaths = (op: AnyOperation & { path: string }) => [op.path, ...(op.aliases ?? [])];
/** Names of the `{param}` segments of a REST path. */
const pathParams = (path: string) => [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]);
const expressPath = (path: string) => path.replace(/\{([A-Za-z_]+)\}/g, ':$1');

// ---- tRPC ----------------------------------------------------------------------------------

/** An input whose fields are all optional may be left out. */
type TrpcInput<S extends InputSchema> = S extends z.ZodObject ? (Partial<z.input<S>> extends z.input<S> ? z.input<S> | undefined : z.input<S>) : void;
type ProcedureOf<Op> =
  Op extends Operation<string, OperationRole, infer M, infer S, infer O>
    ? Kind<M> extends 'query'
      ? TRPCQueryProcedure<{ input: TrpcInput<S>; output: Awaited<O>; meta: object }>
      : TRPCMutationProcedure<{ input: TrpcInput<S>; output: Awaited<O>; meta: object }>
    : never;
type Head<Id> = Id extends `${infer H}.${string}` ? H : never;
type Tail<Id, H extends string> = Id extends `${H}.${infer T}` ? T : never;
/** `{ problems: { acknowledge: procedure, … }, … }` for the operations' ids. */
export type OperationsRecord<Op extends AnyOperation> = {
  [H in Head<Op['id']>]: { [T in Tail<Op['id'], H>]: ProcedureOf<Extract<Op, { id: `${H}.${T}` }>> };
};

const PROCEDURE_BY_ROLE = { public: publicProcedure, operator: operatorProcedure, admin: adminProcedure } as const;

/**
 * The tRPC procedures of the operations, nested by id, to spread into the app's `router({...})`.
 * An input whose fields are all optional may be left out by the caller (as `{}`).
 */
export function operationsRecord<Op extends AnyOperation>(operations: readonly Op[]): OperationsRecord<Op> {
  const record: Record<string, Record<string, unknown>> = {};
  for (const op of operations.filter(hasTrpc)) {
    const [head, tail] = op.id.split('.');
    const base = PROCEDURE_BY_ROLE[op.role];
    const schema = op.input as z.ZodObject | undefined;
    const withInput = schema ? base.input(schema.optional()) : base;
    const resolve = ({ input, ctx }: { input: unknown; ctx: Caller }) =>
      op.handler(schema && input === undefined ? parseInput(schema, {}) : input, ctx);
    record[head] ??= {};
    record[head][tail] = op.kind === 'query' ? withInput.query(resolve) : withInput.mutation(resolve);
  }
  return record as OperationsRecord<Op>;
}

// ---- REST ----------------------------------------------------------------------------------

/** A REST call's input: path params over the query (GET, DELETE) or the body (the rest). */
function restInput(op: AnyOperation, req: Request): unknown {
  const schema = op.input as z.ZodObject;
  const params = req.params as Record<string, string>;
  if (op.method === 'GET' || op.method === 'DELETE') return parseQuery(schema, { ...(req.query as object), ...params });
  const body: unknown = req.body;
  if (op.restBody !== undefined) return parseInput(schema, { ...params, [op.restBody]: body ?? {} });
  const fields = body === undefined || body === null ? {} : body;
  return parseInput(schema, typeof fields === 'object' && !Array.isArray(fields) ? { ...fields, ...params } : fields);
}

/**
 * The REST routes of the operations, in declaration order (declare `/x/active` before `/x/{id}`).
 * Errors reach the app's error handler: `{ error: { code, message, details } }` with the status
 * of `error-map.ts`; bad query parameters as `parseQuery`, bad bodies as `parseInput` say.
 */
export function operationRoutes(operations: readonly AnyOperation[], authenticator: Authenticator): express.Router {
  const r = express.Router();
  const guards = { operator: requireUser(authenticator, 'operator'), admin: requireUser(authenticator, 'admin') };
  for (const op of operations.filter(hasRest)) {
    const handle = async (req: Request, res: Response) => {
      const user = (res.locals.user as SessionUser | undefined) ?? null;
      const caller: Caller = { user, ip: clientAddress(req), token: currentToken(res), cookie: sessionCookie(req, res) };
      const output: unknown = await op.handler(op.input ? restInput(op, req) : undefined, caller);
      const status = op.alternative?.when(output) ? op.alternative.status : (op.status ?? 200);
      if (status === 204) res.status(204).end();
      else if (op.produces) res.status(status).set({ 'Content-Type': op.produces.contentType, 'Cache-Control': 'no-store', ...op.produces.headers }).send(output);
      else sendJson(res, status, op.envelope === undefined ? output : { [op.envelope]: output });
    };
    const method = op.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    for (const path of restPaths(op)) {
      if (op.role === 'public') r[method](expressPath(path), handle);
      else r[method](expressPath(path), guards[op.role], handle);
    }
  }
  return r;
}

// ---- OpenAPI -------------------------------------------------------------------------------

export const ErrorBodySchema = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
  })
  .meta({ id: 'ErrorBody' });

export const jsonContent = (schema: z.ZodType) => ({ content: { 'application/json': { schema } } });
export const errorResponse = (description: string) => ({ description, ...jsonContent(ErrorBodySchema) });

/** Statuses every console operation may answer besides its own. */
export const UI_ERRORS = {
  '400': errorResponse('Invalid parameter or body'),
  '401': errorResponse('No valid session token'),
  '403': errorResponse('The role does not allow this'),
  '413': errorResponse('Body too large'),
  '429': errorResponse('Too many requests'),
} as const;

/** An OpenAPI operation from its parts (also for the hand-written routes' entries). */
export function openApiOperation(spec: {
  summary: string;
  role: OperationRole;
  ok: [status: string, description: string, schema?: z.ZodType];
  /** The success answer's content type (default JSON). */
  contentType?: string;
  /** A second success status answering the same schema. */
  alsoOk?: [status: string, description: string];
  query?: z.ZodObject;
  path?: z.ZodObject;
  body?: z.ZodType;
  /** The route reads a missing body as `{}` (declared operations whose body fields are all optional). */
  bodyOptional?: boolean;
  errors?: Readonly<Record<string, string>>;
}): ZodOpenApiOperationObject {
  const [status, description, schema] = spec.ok;
  const responses: Record<string, ZodOpenApiResponseObject> = {
    [status]:
      status === '204'
        ? { description }
        : { description, content: { [spec.contentType ?? 'application/json']: { schema: schema ?? z.looseObject({}) } } },
    ...UI_ERRORS,
  };
  if (spec.alsoOk) responses[spec.alsoOk[0]] = { ...responses[status], description: spec.alsoOk[1] };
  if (spec.path) responses['404'] = errorResponse('No such resource');
  for (const [code, text] of Object.entries(spec.errors ?? {})) responses[code] = errorResponse(text);
  return {
    summary: spec.summary,
    ...(spec.role === 'public'
      ? { security: [] }
      : { security: [{ session: [] }], description: `Role: ${spec.role === 'admin' ? 'admin' : 'admin or monitor'}.` }),
    ...(spec.query || spec.path ? { requestParams: { ...(spec.query ? { query: spec.query } : {}), ...(spec.path ? { path: spec.path } : {}) } } : {}),
    ...(spec.body ? { requestBody: { required: !spec.bodyOptional, ...jsonContent(spec.body) } } : {}),
    responses,
  };
}

/** A zod pick/omit mask of field names known only at run time. */
const mask = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, true])) as Record<string, true> & Record<number, never>;
const pick = (schema: z.ZodObject, keys: string[]) => schema.pick(mask(keys));
const omit = (schema: z.ZodObject, keys: string[]) => (keys.length === 0 ? schema : schema.omit(mask(keys)));

/** The OpenAPI entry of one operation at one of its paths. */
function documentOperation(op: AnyOperation, path: string): ZodOpenApiOperationObject {
  const schema = op.input as z.ZodObject | undefined;
  const params = pathParams(path);
  const rest = schema ? omit(schema, params) : undefined;
  const hasFields = rest !== undefined && Object.keys(rest.shape).length > 0;
  const inQuery = op.method === 'GET' || op.method === 'DELETE';
  const status = String(op.status ?? 200);
  const body = inQuery ? undefined : op.restBody !== undefined ? (schema?.shape[op.restBody] as z.ZodType) : hasFields ? rest : undefined;
  const documented = openApiOperation({
    summary: op.summary,
    role: op.role,
    ok: [status, op.summary, op.envelope === undefined ? op.output : z.object({ [op.envelope]: op.output })],
    ...(op.produces ? { contentType: op.produces.contentType } : {}),
    ...(schema && params.length > 0 ? { path: pick(schema, params) } : {}),
    ...(inQuery && hasFields ? { query: rest } : {}),
    // A missing body is read as `{}` (restInput): required only when `{}` does not do.
    ...(body ? { body, bodyOptional: body.safeParse({}).success } : {}),
    ...(op.errors ? { errors: op.errors } : {}),
    ...(op.alternative ? { alsoOk: [String(op.alternative.status), op.alternative.description] as [string, string] } : {}),
  });
  // The declared id: the tRPC procedure of the same operation, unless it is REST only.
  return { ...documented, 'x-operation': op.id, ...(hasTrpc(op) ? { 'x-trpc': op.id } : {}) };
}

/** The operations the console calls over tRPC only, for the document (`x-trpc-only`): no REST route to list them under. */
export function trpcOnlyOperations(operations: readonly AnyOperation[]): { id: string; kind: 'query' | 'mutation'; role: OperationRole; summary: string }[] {
  return operations.filter((op) => !hasRest(op)).map((op) => ({ id: op.id, kind: op.kind, role: op.role, summary: op.summary }));
}

/** The OpenAPI paths of the operations that have a REST route. */
export function operationPaths(operations: readonly AnyOperation[]): ZodOpenApiPathsObject {
  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const op of operations.filter(hasRest)) {
    for (const path of restPaths(op)) {
      paths[path] ??= {};
      paths[path][op.method.toLowerCase()] = documentOperation(op, path);
    }
  }
  return paths;
}

// ---- RBAC ----------------------------------------------------------------------------------

/** The role each REST route needs, keyed `METHOD /express/:path` (as the RBAC matrix test names routes). */
export function restAccess(operations: readonly AnyOperation[]): Record<string, OperationRole> {
  return Object.fromEntries(operations.filter(hasRest).flatMap((op) => restPaths(op).map((p) => [`${op.method} ${expressPath(p)}`, op.role])));
}

/** The role each tRPC procedure needs, keyed by its path. */
export function trpcAccess(operations: readonly AnyOperation[]): Record<string, OperationRole> {
  return Object.fromEntries(operations.filter(hasTrpc).map((op) => [op.id, op.role]));
}
