import { actionsOperations, type CommandsService, type RemoteActionsService } from '../actions/index.js';
import { apiKeysRouter, type ApiKeysAdmin } from '../apikeys/index.js';
import { auditRouter, type AuditService } from '../audit/index.js';
import { authRouter, totpOperations, type AuthService, type TotpService } from '../auth/index.js';
import { dashboardsRouter, type DashboardsService } from '../dashboards/index.js';
import { eventsRouter, type EventsService } from '../events/index.js';
import { hostsRouter, type HostsService } from '../hosts/index.js';
import { maintenanceOperations, type MaintenanceService } from '../maintenance/index.js';
import { mobileOperations, type MobileService } from '../mobile/index.js';
import { notificationsOperations, type NotifyService } from '../notify/index.js';
import { problemsOperations, type ProblemsService } from '../problems/index.js';
import { reportsRouter, type ReportsService } from '../reports/index.js';
import { settingsRouter, type SettingsService } from '../settings/index.js';
import { telegramOperations, type TelegramService } from '../telegram/index.js';
import { updatesOperations, type AgentUpdatesService, type AgentVersionsService } from '../updates/index.js';
import { usersRouter, type UsersService } from '../users/index.js';
import { streamOperations, type StreamTickets } from '../stream/index.js';
import { SAC_VERSION } from '../version.js';
import { operationsRecord, publicProcedure, router } from '../http/index.js';

/** The services behind the read API and problem handling. */
export interface ReadServices {
  events: EventsService;
  hosts: HostsService;
  problems: ProblemsService;
  dashboards: DashboardsService;
}

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
  agentVersions: AgentVersionsService;
  agentUpdates: AgentUpdatesService;
  maintenance: MaintenanceService;
  totp: TotpService;
  telegram: TelegramService;
  actions: RemoteActionsService;
  commands: CommandsService;
  mobile: MobileService;
  streamTickets: StreamTickets;
}

/** Every console operation declared with `defineOperation` (the tRPC procedures, REST routes, OpenAPI entries and RBAC rows derive from these). */
export function appOperations(deps: RouterDeps) {
  return [
    ...problemsOperations(deps.read.problems),
    ...actionsOperations(deps.actions, deps.commands),
    ...updatesOperations(deps.agentVersions, deps.agentUpdates),
    ...maintenanceOperations(deps.maintenance),
    ...notificationsOperations(deps.notify),
    ...telegramOperations(deps.telegram),
    ...totpOperations(deps.auth, deps.totp),
    ...mobileOperations(deps.mobile),
    ...streamOperations(deps.streamTickets, deps.auth),
  ];
}

export type AppOperations = ReturnType<typeof appOperations>;

/** The console's whole API. Routers are plural nouns, procedures verbs. */
export function createAppRouter(deps: RouterDeps, operations: AppOperations) {
  return router({
    ...operationsRecord(operations),
    reports: reportsRouter(deps.reports),
    auth: authRouter(deps.auth, deps.users),
    users: usersRouter(deps.users),
    apiKeys: apiKeysRouter(deps.apiKeys),
    settings: settingsRouter(deps.settings),
    audit: auditRouter(deps.audit),
    events: eventsRouter(deps.read.events),
    hosts: hostsRouter(deps.read.hosts),
    dashboards: dashboardsRouter(deps.read.dashboards),
    system: router({
      info: publicProcedure.query(() => ({ version: SAC_VERSION, store: deps.storeKind })),
    }),
  });
}

/** The router's type, imported (type only) by the console's tRPC client. */
export type AppRouter = ReturnType<typeof createAppRouter>;
