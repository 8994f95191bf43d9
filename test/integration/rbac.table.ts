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
  'POST /api/v1/stream/ticket': 'operator',
  'GET /api/v1/stream/events': 'operator',
  // notifications
  'GET /api/v1/push/vapid-public-key': 'operator',
  'POST /api/v1/push/subscriptions': 'operator',
  'GET /api/v1/push/subscriptions': 'admin',
  'DELETE /api/v1/push/subscriptions/:id': 'operator',
  // agent versions from git
  'GET /api/v1/agents/versions': 'operator',
  'POST /api/v1/agents/versions/refresh': 'admin',
  'POST /api/v1/settings/git_repos/test': 'admin',
  // agent updates
  'GET /api/v1/agent/poll': 'agent',
  'GET /api/v1/agent/rdp-bundle/:token': 'public',
  'GET /api/v1/agent-updates': 'operator',
  'GET /api/v1/agent-updates/:id': 'operator',
  'POST /api/v1/agent-updates': 'admin',
  'POST /api/v1/hosts/:id/agent-update': 'admin',
  'POST /api/v1/agent-updates/:id/push': 'admin',
  'GET /api/v1/hosts/:id/agent-config': 'operator',
  'PUT /api/v1/hosts/:id/agent-config': 'admin',
  // maintenance windows; changes also need the `maintenance.managers` setting for monitors
  'GET /api/v1/maintenance-windows': 'operator',
  'GET /api/v1/maintenance-windows/active': 'operator',
  'GET /api/v1/maintenance-windows/:id': 'operator',
  'POST /api/v1/maintenance-windows': 'operator',
  'PUT /api/v1/maintenance-windows/:id': 'operator',
  'POST /api/v1/maintenance-windows/:id/end': 'operator',
  // two-factor sign-in and Telegram link
  'POST /api/v1/auth/login/totp': 'public',
  'POST /api/v1/auth/login/enroll': 'public',
  'POST /api/v1/auth/login/enroll/confirm': 'public',
  'GET /api/v1/auth/totp': 'operator',
  'POST /api/v1/auth/totp/enroll': 'operator',
  'POST /api/v1/auth/totp/confirm': 'operator',
  'POST /api/v1/auth/totp/disable': 'operator',
  'POST /api/v1/users/:id/totp/reset': 'admin',
  'GET /api/v1/auth/telegram': 'operator',
  'POST /api/v1/auth/telegram/link-code': 'operator',
  'DELETE /api/v1/auth/telegram': 'operator',
  // remote actions: the agent command channel, and operators' actions (admin and monitor)
  'GET /api/v1/agent/commands': 'agent',
  'POST /api/v1/agent/commands/:id/result': 'agent',
  'GET /api/v1/hosts/:id/sessions': 'operator',
  'POST /api/v1/hosts/:id/sessions/:sid/logoff': 'operator',
  'POST /api/v1/events/:id/actions/sessions': 'operator',
  'POST /api/v1/events/:id/actions/logoff': 'operator',
  'GET /api/v1/commands': 'operator',
  'GET /api/v1/commands/:id': 'operator',
  'POST /hosts/:id/actions/winrm-test': 'operator',
  'POST /api/v1/hosts/:id/actions/winrm-test': 'operator',
  'POST /api/v1/hosts/:id/actions/ssh-test': 'operator',
  // mobile devices
  'POST /api/v1/mobile/enrollment-codes': 'admin',
  'GET /api/v1/mobile/enrollment-codes': 'admin',
  'DELETE /api/v1/mobile/enrollment-codes/:id': 'admin',
  'POST /api/v1/mobile/enroll': 'public',
  'POST /api/v1/mobile/token': 'public',
  'PUT /api/v1/mobile/push': 'operator',
  'GET /api/v1/devices': 'operator',
  'POST /devices/:id/revoke': 'admin',
  'DELETE /devices/:id': 'admin',
  'POST /api/v1/devices/:id/revoke': 'admin',
  'DELETE /api/v1/devices/:id': 'admin',
};

export const TRPC_ACCESS: Record<string, Access> = {
  // #5
  'notifications.deliveries': 'admin',
  'notifications.retry': 'admin',
  'notifications.test': 'admin',
  'notifications.vapidPublicKey': 'operator',
  'notifications.subscribePush': 'operator',
  'notifications.unsubscribePush': 'operator',
  'notifications.pushSubscriptions': 'admin',
  'agents.versions': 'operator',
  'agents.refreshVersions': 'admin',
  'agents.testGitRepo': 'admin',
  'agents.updates': 'operator',
  'agents.updateHost': 'admin',
  'agents.updateProduct': 'admin',
  'agents.hostConfig': 'operator',
  'agents.pushUpdate': 'admin',
  'agents.setHostConfig': 'admin',
  // #19
  'maintenance.list': 'operator',
  'maintenance.canManage': 'operator',
  'maintenance.active': 'operator',
  'maintenance.byId': 'operator',
  'maintenance.create': 'operator',
  'maintenance.update': 'operator',
  'maintenance.end': 'operator',
  'totp.loginVerify': 'public',
  'totp.loginEnroll': 'public',
  'totp.loginEnrollConfirm': 'public',
  'totp.status': 'operator',
  'totp.enroll': 'operator',
  'totp.confirm': 'operator',
  'totp.disable': 'operator',
  'totp.reset': 'admin',
  'telegram.status': 'operator',
  'telegram.createLinkCode': 'operator',
  'telegram.unlink': 'operator',
  // #12
  'actions.sessions': 'operator',
  'actions.logoff': 'operator',
  'actions.eventSessions': 'operator',
  'actions.eventLogoff': 'operator',
  'actions.winrmTest': 'operator',
  'actions.sshTest': 'operator',
  'actions.commands': 'operator',
  'actions.command': 'operator',
  // #14
  'mobile.issueCode': 'admin',
  'mobile.codes': 'admin',
  'mobile.revokeCode': 'admin',
  'mobile.devices': 'operator',
  'mobile.revokeDevice': 'admin',
  'mobile.deleteDevice': 'admin',
};
