import type { Event, OsFamily } from '../../../shared/src/index.js';
import type { StoredEvent } from './events.types.js';
import type { OutboxRepo, PushRepo, ReportsRepo } from './notify.types.js';
import type { AuditRepo } from './audit.types.js';
import type { LoginThrottleRepo, StreamTicketsRepo, UsersRepo } from './auth.types.js';
import type { SessionsRepo } from './sessions.types.js';
import type { SettingsRepo } from './settings.types.js';
import type { MaintenanceRepo } from './maintenance.types.js';
import type { EscalationRepo } from './escalation.types.js';
import type { TelegramRepo } from './telegram.types.js';
import type { TotpRepo } from './totp.types.js';
import type { CommandsRepo } from './commands.types.js';
import type { DevicesRepo } from './devices.types.js';
import type { FeedRepo } from './feed.types.js';
import type { CorrelationRepo, HostStateRepo, LeasesRepo, ProblemsRepo } from './correlation.types.js';
import type { AgentVersionsRepo } from './agent-versions.types.js';
import type { AgentUpdatesRepo } from './agent-updates.types.js';

/**
 * The store: one interface, two adapters (`sqlite/`, `mongo/`). Services reach storage only
 * through these repositories; every method is an atomic operation the services need.
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  readonly events: EventsRepo;
  readonly hosts: HostsRepo;
  readonly apiKeys: ApiKeysRepo;
  /** Notification outbox and delivery log (issue #5). */
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
  readonly correlation: CorrelationRepo;
  readonly leases: LeasesRepo;
  readonly agentVersions: AgentVersionsRepo;
  readonly agentUpdates: AgentUpdatesRepo;
  readonly maintenance: MaintenanceRepo;
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

/** What one accepted event says about the host that sent it. */
export interface HostObservation {
  /** Identity: lower-cased hostname + '|' + os_family. */
  key: string;
  hostname: string;
  os_family: OsFamily;
  display_name?: string;
  fqdn?: string;
  ipv4?: string;
  os_version?: string;
  timezone?: string;
  agent_product: string;
  agent_version: string;
  agent_instance_id?: string;
  seen_ms: number;
}

/** An event ready to be written: the validated payload plus what SAC derives at ingest. */
export interface NewEvent {
  event: Event;
  host: HostObservation;
  occurred_ms: number;
  received_ms: number;
  actor_user: string | null;
  agent_version: string;
}

/**
 * `rejected`: the store refused this one event's content (e.g. a key MongoDB cannot hold); the
 * others of its batch are unaffected.
 */
export type InsertOutcome = { status: 'inserted'; host_id: string } | { status: 'duplicate' } | { status: 'rejected'; reason: string };


export interface EventsRepo {
  /**
   * Writes a batch in one commit (group commit). Each item's outcome is at its index: `inserted`
   * with the host it was linked to, or `duplicate` when its `event_id` already exists — also when
   * the same id appears twice in the batch or arrives concurrently. Hosts are created (or
   * recreated after deletion) and their last-seen and agent fields updated from inserted events.
   * `afterInsert` — the ingest listeners — runs with the outcomes inside the same commit where the
   * store can (SQLite: one transaction and one sync, so events are never stored without what the
   * listeners derived from them), otherwise right after the insert. It should not throw; if it
   * does, the promise rejects (on SQLite with the whole batch rolled back). Resolves only once the
   * batch and what `afterInsert` wrote are durable.
   */
  insertBatch(items: NewEvent[], afterInsert?: (outcomes: InsertOutcome[]) => Promise<void>): Promise<InsertOutcome[]>;
  byId(eventId: string): Promise<StoredEvent | null>;
  count(): Promise<number>;
}

export interface Host {
  id: string;
  key: string;
  hostname: string;
  os_family: OsFamily;
  display_name: string | null;
  fqdn: string | null;
  ipv4: string | null;
  /** Every IPv4 address this host has reported, oldest first. */
  ips: string[];
  os_version: string | null;
  timezone: string | null;
  agent_product: string;
  agent_version: string;
  /** The agent installation that sent the most recently received event; null when none said. */
  agent_instance_id: string | null;
  /** Every agent instance id seen from this host, oldest first. */
  agent_instance_ids: string[];
  /** Result of the last SSH administrator access probe; null until a probe has run. */
  ssh_admin_ok: boolean | null;
  /** When that probe ran (epoch ms); null until a probe has run. */
  ssh_admin_checked_at: number | null;
  first_seen_ms: number;
  last_seen_ms: number;
}

export interface HostsRepo {
  byId(id: string): Promise<Host | null>;
  list(): Promise<Host[]>;
  /**
   * The host whose latest agent instance is `agentInstanceId` (the identity the agent command
   * poll carries); when a reinstalled or renamed host left several, the most recently seen one.
   */
  hostByAgentInstance(agentInstanceId: string): Promise<Host | null>;
  /** Records an SSH administrator access probe result; false when the host does not exist. */
  setSshAdminOk(hostId: string, ok: boolean, atMs: number): Promise<boolean>;
}

export interface ApiKeyRecord {
  id: string;
  /** The visible start of the key (`sac_` + 8 characters), for identification. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  label: string;
  /** Lower-cased `host.hostname` the key may send for, or null (any host). */
  bound_hostname: string | null;
  /** `source.agent_instance_id` the key may send for, or null (any). */
  bound_instance_id: string | null;
  on_mismatch: 'refuse' | 'flag';
  created_ms: number;
  last_used_ms: number | null;
  revoked_ms: number | null;
}

export interface ApiKeysRepo {
  insert(record: ApiKeyRecord): Promise<void>;
  byHash(hash: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  /** Records use; the caller throttles how often. */
  touch(id: string, atMs: number): Promise<void>;
  revoke(id: string, atMs: number): Promise<boolean>;
}
