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
  // sign-in
  'POST /api/v1/auth/login': 'public',
  'GET /api/v1/auth/me': 'operator',
  'POST /api/v1/auth/renew': 'operator',
  'POST /api/v1/auth/logout': 'operator',
  'POST /api/v1/auth/password': 'operator',
  // users, agent API keys, settings, audit
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'PATCH /api/v1/users/:id': 'admin',
  'DELETE /api/v1/users/:id': 'admin',
  'GET /api/v1/api-keys': 'admin',
  'POST /api/v1/api-keys': 'admin',
  'DELETE /api/v1/api-keys/:id': 'admin',
  'GET /api/v1/settings': 'admin',
  'GET /api/v1/settings/:category': 'admin',
  'PATCH /api/v1/settings/:category': 'admin',
  'GET /api/v1/audit': 'admin',
  // live stream
  'GET /api/v1/stream/events': 'operator',
  // events, hosts, dashboards
  'GET /api/v1/events': 'operator',
  'GET /api/v1/events/:id': 'operator',
  'GET /api/v1/hosts': 'operator',
  'GET /api/v1/hosts/:id': 'operator',
  'DELETE /api/v1/hosts/:id': 'admin',
  'PUT /api/v1/hosts/:id/action-address': 'admin',
  'DELETE /api/v1/hosts/:id/action-address': 'admin',
  'GET /api/v1/dashboards/summary': 'operator',
  // notifications and reports
  'GET /api/v1/reports': 'operator',
  'GET /api/v1/reports/:id': 'operator',
  'GET /api/v1/reports/:id/html': 'operator',
  'POST /api/v1/reports': 'admin',
  // agent updates: the agents' side
  'GET /api/v1/agent/poll': 'agent',
  'GET /api/v1/agent/rdp-bundle/:token': 'public',
  // remote actions: the agent command channel
  'GET /api/v1/agent/commands': 'agent',
  'POST /api/v1/agent/commands/:id/result': 'agent',
  // mobile enrollment codes (the answer's URL is built from the request's host)
  'POST /api/v1/mobile/enrollment-codes': 'admin',
};

export const TRPC_ACCESS: Record<string, Access> = {
  'system.info': 'public',
  // #3
  'auth.login': 'public',
  'auth.me': 'operator',
  'auth.renew': 'operator',
  'auth.logout': 'operator',
  'auth.changePassword': 'operator',
  'users.list': 'admin',
  'users.byId': 'admin',
  'users.create': 'admin',
  'users.update': 'admin',
  'users.delete': 'admin',
  'apiKeys.list': 'admin',
  'apiKeys.create': 'admin',
  'apiKeys.revoke': 'admin',
  'settings.list': 'admin',
  'settings.get': 'admin',
  'settings.update': 'admin',
  'settings.reset': 'admin',
  'audit.list': 'admin',
  'audit.count': 'admin',
  // #4
  'events.list': 'operator',
  'events.byId': 'operator',
  'hosts.list': 'operator',
  'hosts.byId': 'operator',
  'hosts.delete': 'admin',
  'hosts.pinAddress': 'admin',
  'hosts.unpinAddress': 'admin',
  'dashboards.summary': 'operator',
  'dashboards.eventsPerHour': 'operator',
  // #5
  'reports.list': 'operator',
  'reports.byId': 'operator',
  'reports.generate': 'admin',
};
