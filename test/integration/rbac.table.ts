/**
 * The access table of every HAND-WRITTEN REST route and tRPC procedure; console operations
 * declare their role with `defineOperation` (`daemon/src/<feature>/<feature>.operations.ts`) and
 * the test reads it from there. The RBAC matrix test (rbac.matrix.test.ts) enumerates the running
 * daemon's Express routes and tRPC procedures and fails for any that is in neither (or listed
 * here but gone, or listed here and declared), then checks each one with no token, a monitor's
 * token, an admin's token, a deactivated user's token and an agent API key.
 *
 * Adding a hand-written route or procedure? Add ONE line here:
 *   public   — answers everyone (never 401/403)
 *   operator — any signed-in active console user (monitor or admin); others 401
 *   admin    — admins only: monitor 403; no token, deactivated user, agent key 401
 *   agent    — agent API key only: console tokens and no token 401
 * REST keys are `METHOD <Express path>` exactly as declared (`:id` params, RegExp routes as `/…/`).
 */
export type Access = 'public' | 'operator' | 'admin' | 'agent';

export const REST_ACCESS: Record<string, Access> = {
  // health, metrics, console web build
  'GET /health': 'public',
  'GET /healthz': 'public',
  'GET /metrics': 'admin',
  'GET /api/v1/openapi.json': 'public',
  'GET /': 'public',
  'GET /index.html': 'public',
  'GET /.*/': 'public',
  // live stream
  'GET /api/v1/stream/events': 'operator',
  // agent updates: the agents' side
  'GET /api/v1/agent/poll': 'agent',
  'GET /api/v1/agent/rdp-bundle/:token': 'public',
  // remote actions: the agent command channel
  'GET /api/v1/agent/commands': 'agent',
  'POST /api/v1/agent/commands/:id/result': 'agent',
  // mobile enrollment codes (the answer's URL is built from the request's host)
  'POST /api/v1/mobile/enrollment-codes': 'admin',
};

/** Every tRPC procedure is a declared operation today: none is hand-written. */
export const TRPC_ACCESS: Record<string, Access> = {};
