import { actionsOperations, type CommandsService, type RemoteActionsService } from '../actions/index.js';
import { apiKeysOperations, type ApiKeysAdmin } from '../apikeys/index.js';
import { approvalsOperations, type ApprovalsService } from '../approvals/index.js';
import { auditOperations, type AuditService } from '../audit/index.js';
import { bansOperations, type BansService } from '../bans/index.js';
import { authOperations, totpOperations, type AuthService, type TotpService } from '../auth/index.js';
import { dashboardsOperations, type DashboardsService } from '../dashboards/index.js';
import { eventsOperations, type EventsService } from '../events/index.js';
import { hostsOperations, type HostsService } from '../hosts/index.js';
import { maintenanceOperations, type MaintenanceService } from '../maintenance/index.js';
import { groupsOperations, type GroupsService } from '../groups/index.js';
import { mobileOperations, type MobileService } from '../mobile/index.js';
import { notificationsOperations, type NotifyService } from '../notify/index.js';
import { problemsOperations, type ProblemsService } from '../problems/index.js';
import { loginsOperations, type LoginsService } from '../logins/index.js';
import { reportsOperations, type ReportsService } from '../reports/index.js';
import { rolloutsOperations, type RolloutsService } from '../rollouts/index.js';
import { settingsOperations, type SettingsService } from '../settings/index.js';
import { telegramOperations, type TelegramService } from '../telegram/index.js';
import { updatesOperations, type AgentUpdatesService, type AgentVersionsService } from '../updates/index.js';
import { usersOperations, type UsersService } from '../users/index.js';
import { streamOperations, type StreamTickets } from '../stream/index.js';
import { suggestOperations, type SuggestService } from '../suggest/index.js';
import { SAC_VERSION } from '../version.js';
import { defineOperation, operationsRecord, router, withHostScope } from '../http/index.js';
import { z } from 'zod';

/** The services behind the read API and problem handling. */
export interface ReadServices {
  events: EventsService;
  hosts: HostsService;
  problems: ProblemsService;
  dashboards: DashboardsService;
  suggest: SuggestService;
  logins: LoginsService;
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
  groups: GroupsService;
  totp: TotpService;
  telegram: TelegramService;
  actions: RemoteActionsService;
  commands: CommandsService;
  mobile: MobileService;
  streamTickets: StreamTickets;
  approvals: ApprovalsService;
  bans: BansService;
  rollouts: RolloutsService;
}

/** Every console operation declared with `defineOperation` (the tRPC procedures, REST routes, OpenAPI entries and RBAC rows derive from these). */
export function appOperations(deps: RouterDeps) {
  return withHostScope([
    ...authOperations(deps.auth, deps.users),
    ...usersOperations(deps.users),
    ...apiKeysOperations(deps.apiKeys),
    ...settingsOperations(deps.settings),
    ...auditOperations(deps.audit),
    ...eventsOperations(deps.read.events),
    ...hostsOperations(deps.read.hosts),
    ...problemsOperations(deps.read.problems),
    ...dashboardsOperations(deps.read.dashboards),
    ...suggestOperations(deps.read.suggest),
    ...loginsOperations(deps.read.logins),
    ...reportsOperations(deps.reports),
    defineOperation({
      id: 'system.info',
      summary: 'SAC version and store kind',
      role: 'public',
      method: 'GET',
      output: z.object({ version: z.string(), store: z.enum(['sqlite', 'mongodb']) }),
      handler: () => ({ version: SAC_VERSION, store: deps.storeKind }),
    }),
    ...actionsOperations(deps.actions, deps.commands),
    ...updatesOperations(deps.agentVersions, deps.agentUpdates),
    ...maintenanceOperations(deps.maintenance),
    ...groupsOperations(deps.groups),
    ...notificationsOperations(deps.notify),
    ...telegramOperations(deps.telegram),
    ...totpOperations(deps.auth, deps.totp),
    ...mobileOperations(deps.mobile),
    ...streamOperations(deps.streamTickets, deps.auth),
    ...approvalsOperations(deps.approvals),
    ...bansOperations(deps.bans),
    ...rolloutsOperations(deps.rollouts),
  ], (user) => deps.groups.scopeOf(user));
}

export type AppOperations = ReturnType<typeof appOperations>;

/** The console's whole API. Routers are plural nouns, procedures verbs. */
export function createAppRouter(deps: RouterDeps, operations: AppOperations) {
  return router({
    ...operationsRecord(operations),
  });
}

/** The router's type, imported (type only) by the console's tRPC client. */
export type AppRouter = ReturnType<typeof createAppRouter>;
