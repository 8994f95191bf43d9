/**
 * THE access table of every REST route and every tRPC procedure. The RBAC matrix test
 * (rbac.matrix.test.ts) enumerates the running daemon's Express routes and tRPC procedures and
 * fails for any that is missing here (or listed here but gone), then checks each one with no
 * token, a monitor's token, an admin's token, a deactivated user's token and an agent API key.
 *
 * Adding a route or procedure? Add ONE line here:
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
  'GET /metrics': 'public',
  'GET /api/v1/openapi.json': 'public',
  'GET /': 'public',
  'GET /index.html': 'public',
  'GET /.*/': 'public',
  // sign-in (#3)
  'POST /api/v1/auth/login': 'public',
  'GET /api/v1/auth/me': 'operator',
  'POST /api/v1/auth/renew': 'operator',
  'POST /api/v1/auth/password': 'operator',
  // users, agent API keys, settings, audit (#3)
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
  // live stream (#3)
  'POST /api/v1/stream/ticket': 'operator',
  'GET /api/v1/stream/events': 'operator',
  // events, hosts, problems, dashboards (#4)
  'GET /api/v1/events': 'operator',
  'GET /api/v1/events/:id': 'operator',
  'GET /api/v1/hosts': 'operator',
  'GET /api/v1/hosts/:id': 'operator',
  'DELETE /api/v1/hosts/:id': 'admin',
  'GET /api/v1/problems': 'operator',
  'GET /api/v1/problems/:id': 'operator',
  'POST /api/v1/problems/:id/acknowledge': 'operator',
  'POST /api/v1/problems/:id/resolve': 'operator',
  'GET /problems': 'operator',
  'GET /problems/:id': 'operator',
  'POST /problems/:id/acknowledge': 'operator',
  'POST /problems/:id/resolve': 'operator',
  'GET /api/v1/dashboards/summary': 'operator',
  // notifications and reports (#5)
  'GET /api/v1/push/vapid-public-key': 'operator',
  'POST /api/v1/push/subscriptions': 'operator',
  'GET /api/v1/push/subscriptions': 'admin',
  'DELETE /api/v1/push/subscriptions/:id': 'operator',
  'GET /api/v1/reports': 'operator',
  'GET /api/v1/reports/:id': 'operator',
  'GET /api/v1/reports/:id/html': 'operator',
  'POST /api/v1/reports': 'admin',
};

export const TRPC_ACCESS: Record<string, Access> = {
  'system.info': 'public',
  // #3
  'auth.login': 'public',
  'auth.me': 'operator',
  'auth.renew': 'operator',
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
  // #4
  'events.list': 'operator',
  'events.byId': 'operator',
  'hosts.list': 'operator',
  'hosts.byId': 'operator',
  'hosts.delete': 'admin',
  'problems.list': 'operator',
  'problems.byId': 'operator',
  'problems.acknowledge': 'operator',
  'problems.resolve': 'operator',
  'dashboards.summary': 'operator',
  'dashboards.eventsPerHour': 'operator',
  // #5
  'notifications.deliveries': 'admin',
  'notifications.retry': 'admin',
  'notifications.test': 'admin',
  'notifications.vapidPublicKey': 'operator',
  'notifications.subscribePush': 'operator',
  'notifications.unsubscribePush': 'operator',
  'notifications.pushSubscriptions': 'admin',
  'reports.list': 'operator',
  'reports.byId': 'operator',
  'reports.generate': 'admin',
};
