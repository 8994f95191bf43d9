import type { OutboxRepo, PushRepo, ReportsRepo } from './notify.types.js';
import type { AuditRepo } from './audit.types.js';
import type { LoginThrottleRepo, StreamTicketsRepo, UsersRepo } from './auth.types.js';
import type { SessionsRepo } from './sessions.types.js';
import type { SettingsRepo } from './settings.types.js';
import type { MaintenanceRepo } from './maintenance.types.js';
import type { GroupsRepo } from './groups.types.js';
import type { EscalationRepo } from './escalation.types.js';
import type { TelegramRepo } from './telegram.types.js';
import type { TotpRepo } from './totp.types.js';
import type { CommandsRepo } from './commands.types.js';
import type { DevicesRepo } from './devices.types.js';
import type { FeedRepo } from './feed.types.js';
import type { EventsRepo } from './events.types.js';
import type { HostsRepo, HostStateRepo } from './hosts.types.js';
import type { ProblemsRepo } from './problems.types.js';
import type { RollupsRepo } from './rollups.types.js';
import type { LeasesRepo } from './leases.types.js';
import type { ApiKeysRepo } from './api-keys.types.js';
import type { SourceFailuresRepo } from './source-failures.types.js';
import type { ApprovalsRepo } from './approvals.types.js';
import type { RolloutsRepo } from './rollouts.types.js';
import type { SuggestValuesRepo } from './suggest-values.types.js';
import type { LoginBaselinesRepo, UserLoginsRepo } from './login-intel.types.js';
import type { AgentVersionsRepo } from './agent-versions.types.js';
import type { AgentUpdatesRepo } from './agent-updates.types.js';
import type { BansRepo } from './bans.types.js';

/**
 * The store: one interface, two adapters (`sqlite/`, `mongo/`). Services reach storage only
 * through these repositories; every method is an atomic operation the services need.
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  readonly events: EventsRepo;
  readonly hosts: HostsRepo;
  readonly apiKeys: ApiKeysRepo;
  /** Notification outbox and delivery log. */
  readonly outbox: OutboxRepo;
  readonly push: PushRepo;
  readonly reports: ReportsRepo;
  readonly users: UsersRepo;
  readonly loginThrottle: LoginThrottleRepo;
  readonly streamTickets: StreamTicketsRepo;
  readonly sessions: SessionsRepo;
  readonly settings: SettingsRepo;
  readonly audit: AuditRepo;
  readonly problems: ProblemsRepo;
  readonly hostState: HostStateRepo;
  /** Per-hour event counters of the dashboard. */
  readonly rollups: RollupsRepo;
  readonly leases: LeasesRepo;
  readonly agentVersions: AgentVersionsRepo;
  /** Failed logins by source address, for the cross-host login rules. */
  readonly sourceFailures: SourceFailuresRepo;
  readonly approvals: ApprovalsRepo;
  /** Staged agent rollouts and version pins. */
  readonly rollouts: RolloutsRepo;
  /** Distinct users, addresses and types events carried (the console's suggestions). */
  readonly suggestValues: SuggestValuesRepo;
  /** Per-user login baselines (new source for user, impossible travel). */
  readonly loginBaselines: LoginBaselinesRepo;
  /** Logins by normalised user, for a user's page. */
  readonly userLogins: UserLoginsRepo;
  readonly agentUpdates: AgentUpdatesRepo;
  readonly maintenance: MaintenanceRepo;
  /** Host groups (explicit members and rules). */
  readonly groups: GroupsRepo;
  /** Fleet SSH bans. */
  readonly bans: BansRepo;
  readonly escalation: EscalationRepo;
  readonly telegram: TelegramRepo;
  readonly totp: TotpRepo;
  /** The agent command queue (qwinsta, logoff). */
  readonly commands: CommandsRepo;
  /** Mobile enrollment codes, devices and refresh tokens. */
  readonly devices: DevicesRepo;
  /** The cross-daemon message feed (MongoDB); null on SQLite, whose one daemon has its in-process bus. */
  readonly feed: FeedRepo | null;
  /** Applies the numbered migrations not yet recorded; returns the ids applied now. Safe to run twice. */
  migrate(): Promise<number[]>;
  /** Ids of the migrations recorded as applied. */
  appliedMigrations(): Promise<number[]>;
  /** Resolves when the store answers; rejects with the driver's error otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
