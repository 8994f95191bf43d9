import type { OsFamily } from '../../../shared/src/index.js';

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
  /** The address SAC saw the event's request come from (TCP peer after `SAC_TRUSTED_PROXIES`). */
  observed_ip?: string;
  seen_ms: number;
}

/** An admin's pin of where remote actions reach a host; null fields are not pinned. */
export interface HostPin {
  /** The IP literal or DNS name actions connect to. */
  address: string;
  /** The name the WinRM HTTPS certificate must carry (and the NTLM SPN); null: the address. */
  winrm_name: string | null;
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
  /** The address the most recent events of this host came from, as SAC saw it (not as the agent said); null before any. */
  observed_ip: string | null;
  /** The action address an admin pinned; null when not pinned. */
  pinned_address: string | null;
  /** The WinRM HTTPS name an admin pinned with the address; null: the address itself. */
  pinned_winrm_name: string | null;
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
  count(): Promise<number>;
  /**
   * The host whose latest agent instance is `agentInstanceId` (the identity the agent command
   * poll carries); when a reinstalled or renamed host left several, the most recently seen one.
   */
  hostByAgentInstance(agentInstanceId: string): Promise<Host | null>;
  /** Records an SSH administrator access probe result; false when the host does not exist. */
  setSshAdminOk(hostId: string, ok: boolean, atMs: number): Promise<boolean>;
  /** Pins (or with null unpins) a host's action address; false when the host does not exist. */
  setPin(hostId: string, pin: HostPin | null): Promise<boolean>;
  /** Deletes a host with its events (and their counters), problems, timelines, marks and state. False when unknown. */
  delete(hostId: string): Promise<boolean>;
}

/** What SAC keeps about a host besides the host record: liveness and inventory. */
export interface HostState {
  host_id: string;
  /** Received time of the last heartbeat or daily report. */
  heartbeat_ms: number | null;
  /** The status last announced (null: never announced, taken as online). */
  status: 'online' | 'stale' | null;
  inventory: Record<string, unknown> | null;
  inventory_ms: number | null;
  previous_inventory: Record<string, unknown> | null;
  previous_inventory_ms: number | null;
}

export interface HostStateRepo {
  /**
   * Raises each host's heartbeat time (never lowers it) and announces it online, in one write per
   * host. Returns the hosts whose announced status this call changed (another, or none yet).
   */
  recordHeartbeats(items: { host_id: string; at_ms: number }[]): Promise<string[]>;
  /** Sets the announced status; true only for the call that changed it. */
  setStatus(hostId: string, status: 'online' | 'stale'): Promise<boolean>;
  byHost(hostId: string): Promise<HostState | null>;
  list(): Promise<HostState[]>;
  /** Hosts whose announced status is stale. */
  countStale(): Promise<number>;
  /**
   * Replaces the inventory snapshot if `at_ms` (the event's occurred time) is newer than the stored
   * one, keeping the replaced one as previous. Returns the replaced snapshot, or `replaced: false`.
   */
  replaceInventory(hostId: string, inventory: Record<string, unknown>, atMs: number): Promise<{ replaced: boolean; previous: Record<string, unknown> | null }>;
}
