/**
 * Transport plumbing every area's REST routes and tRPC router use: the tRPC base and its
 * procedures by role, REST sign-in checks, input parsing, JSON answers, the one error → status
 * map, and the ports the transport needs (a console token authenticator, an agent key verifier).
 * Imports no feature folder, so areas can import it without a cycle; the app is assembled in `server/`.
 */
export { adminProcedure, knownTrpcError, operatorProcedure, publicProcedure, router, type TrpcContext } from './trpc.js';
export { currentToken, currentUser, requireUser, restActor } from './rest-auth.js';
export { bearerToken, requestSession, sameSecret, sessionCookie, sessionCredential, type SessionCookie } from './session-cookie.js';
export { apiKeyFromHeaders, requireAgentKey, type AgentKeyVerifier } from './agent-auth.js';
export type { Authenticator, TokenSession } from './authenticator.js';
export { parseInput, parseQuery } from './validate.js';
export {
  ByIdInput,
  defineOperation,
  openApiOperation,
  operationPaths,
  trpcOnlyOperations,
  operationRoutes,
  operationsRecord,
  restAccess,
  trpcAccess,
  errorResponse,
  jsonContent,
  ErrorBodySchema,
  type AnyOperation,
  type Caller,
  type Operation,
  type OperationRole,
  type OperationsRecord,
} from './operation.js';
export { withHostScope, type ScopeOf } from './host-scope.js';
export { sendError, sendJson } from './http-errors.js';
export { ERROR_STATUS, RETRY_AFTER_SECONDS, errorBody, mapError, statusOf, type ErrorBody, type MappedError } from './error-map.js';
export { clientAddress, recordClientAddress, requestIsHttps, resolveClientAddress, resolveClientHttps } from './client-address.js';
