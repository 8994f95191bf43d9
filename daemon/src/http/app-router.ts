import type { ApiKeysAdmin } from '../apikeys/index.js';
import type { AuditService } from '../audit/index.js';
import type { AuthService } from '../auth/index.js';
import type { SettingsService } from '../settings/index.js';
import type { UsersService } from '../users/index.js';
import type { NotifyService } from '../notify/index.js';
import type { ReportsService } from '../reports/index.js';
import { mobileRouter, type MobileService } from '../mobile/index.js';
import { SAC_VERSION } from '../version.js';
import { notificationsRouter } from './notifications.router.js';
import { reportsRouter } from './reports.router.js';
import { apiKeysRouter } from './api-keys.router.js';
import { auditRouter } from './audit.router.js';
import { authRouter } from './auth.router.js';
import { settingsRouter } from './settings.router.js';
import { usersRouter } from './users.router.js';
import { dashboardsRouter, eventsRouter, hostsRouter, problemsRouter, type ReadServices } from './read.router.js';
import { publicProcedure, router } from './trpc.js';

/** Services the tRPC routers call; each feature adds what its router needs. */
export interface RouterDeps {
  storeKind: 'sqlite' | 'mongodb';
  notify: NotifyService;
  reports: ReportsService;
  read: ReadServices;
  auth: AuthService;
  users: UsersService;
  apiKeys: ApiKeysAdmin;
  settings: SettingsService;
  audit: AuditService;
  mobile: MobileService;
}

/** The console's whole API. Routers are plural nouns, procedures verbs. */
export function createAppRouter(deps: RouterDeps) {
  return router({
    notifications: notificationsRouter(deps.notify),
    reports: reportsRouter(deps.reports),
    auth: authRouter(deps.auth, deps.users),
    users: usersRouter(deps.users),
    apiKeys: apiKeysRouter(deps.apiKeys),
    settings: settingsRouter(deps.settings),
    audit: auditRouter(deps.audit),
    events: eventsRouter(deps.read.events),
    hosts: hostsRouter(deps.read.hosts),
    problems: problemsRouter(deps.read.problems),
    dashboards: dashboardsRouter(deps.read.dashboards),
    mobile: mobileRouter(deps.mobile),
    system: router({
      info: publicProcedure.query(() => ({ version: SAC_VERSION, store: deps.storeKind })),
    }),
  });
}

/** The router's type, imported (type only) by the console's tRPC client. */
export type AppRouter = ReturnType<typeof createAppRouter>;
