import type { Logger } from 'pino';
import { actionTargetOf, lower } from '../action-target.js';
import { isTargetAddress } from '../target-address.js';
import { HOST_ACTIVITY_HOURS, type HostDetailView, type HostPinInput, type HostSortKey, type HostView } from '../../../shared/src/index.js';
import { approvalAudit, type ApprovalPolicy, type Approved } from '../approvals/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import type { CorrelationSettingsSource } from '../correlation/index.js';
import { AppError, hostNotFound, invalidParameter } from '../errors.js';
import { bucketOf, ROLLUP_BUCKET_MS, type Host, type Store } from '../store/index.js';
import { agentVersionStatus, isOutdated, newestSeenByProduct } from '../updates/index.js';
import { hostStatusOf, lastSeenMs } from './liveness.js';
import type { GroupHosts } from '../groups/index.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** IPv4 as a sortable number (10.0.0.9 before 10.0.0.10); hosts without one sort last ascending. */
const ipOrder = (ip: string | null) => (ip ? ip.split('.').reduce((n, part) => n * 256 + (Number(part) || 0), 0) : Number.MAX_SAFE_INTEGER);

const SORT_VALUE: Record<HostSortKey, (v: HostView) => number | string> = {
  hostname: (v) => v.hostname.toLowerCase(),
  status: (v) => v.status,
  ip: (v) => ipOrder(v.ipv4),
  last_seen: (v) => Date.parse(v.last_seen),
  last_event: (v) => Date.parse(v.last_event_at),
  open_problems: (v) => v.open_problems,
};

/** What the host list is narrowed and sorted by. */
export interface HostListFilter {
  q?: string;
  outdated?: boolean;
  group?: string;
  /** The host ids a caller limited to host groups may see (null: every host). */
  within?: ReadonlySet<string> | null;
  sort?: HostSortKey;
  dir?: 'asc' | 'desc';
}

/**
 * Hosts: the host list and detail with status (liveness.ts), inventory and open problems, and
 * deletion.
 */
export class HostsService {
  constructor(
    private readonly store: Pick<Store, 'hosts' | 'hostState' | 'problems' | 'rollups'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly groupHosts: GroupHosts,
    /** Host deletion may need a second person's approval. */
    private readonly approvals: Pick<ApprovalPolicy, 'assert'>,
    /** Each product's latest agent version read from git (the outdated badge). */
    private readonly latestVersions: () => Promise<Map<string, string>> = async () => new Map(),
  ) {}

  /** Each host's events per hour over the last 24 h: one read of the hourly host counters for all hosts. */
  private async activity(now: number): Promise<(hostId: string) => number[]> {
    const last = bucketOf(now);
    const first = last - (HOST_ACTIVITY_HOURS - 1) * ROLLUP_BUCKET_MS;
    const rows = await this.store.rollups.buckets(first, last, 'host');
    const byHost = new Map<string, number[]>();
    for (const r of rows) {
      const series = byHost.get(r.key) ?? new Array<number>(HOST_ACTIVITY_HOURS).fill(0);
      series[(r.bucket_ms - first) / ROLLUP_BUCKET_MS] += r.n;
      byHost.set(r.key, series);
    }
    return (hostId) => byHost.get(hostId) ?? new Array<number>(HOST_ACTIVITY_HOURS).fill(0);
  }

  /** Views of `hosts`; `fleet` is every stored host (the newest agent version seen per product). */
  private async views(hosts: Host[], fleet: Host[]): Promise<HostView[]> {
    const settings = await this.settings();
    const now = this.clock.now();
    const [states, counts, latest, activity] = await Promise.all([
      this.store.hostState.list(),
      this.store.problems.activeCountsByHost(settings.hiddenTypes),
      this.latestVersions(),
      this.activity(now),
    ]);
    const stateOf = new Map(states.map((s) => [s.host_id, s]));
    const newestSeen = newestSeenByProduct(fleet);
    return hosts.map((h) => {
      const state = stateOf.get(h.id);
      return {
        id: h.id,
        hostname: h.hostname,
        display_name: h.display_name,
        os_family: h.os_family,
        fqdn: h.fqdn,
        ipv4: h.ipv4,
        ips: h.ips,
        os_version: h.os_version,
        agent_product: h.agent_product,
        agent_version: h.agent_version,
        latest_version: latest.get(h.agent_product) ?? null,
        outdated: isOutdated(h.agent_version, latest.get(h.agent_product)),
        version_status: agentVersionStatus(h.agent_version, latest.get(h.agent_product) ?? null, newestSeen.get(h.agent_product) ?? null),
        newest_seen: newestSeen.get(h.agent_product) ?? null,
        agent_instance_id: h.agent_instance_id,
        ssh_admin_ok: h.ssh_admin_ok,
        ssh_admin_checked_at: h.ssh_admin_checked_at === null ? null : iso(h.ssh_admin_checked_at),
        status: hostStatusOf(h, state, settings, now),
        last_seen: iso(lastSeenMs(h, state)),
        last_event_at: iso(h.last_seen_ms),
        first_seen: iso(h.first_seen_ms),
        open_problems: counts.get(h.id) ?? 0,
        inventory_at: state?.inventory_ms != null ? iso(state.inventory_ms) : null,
        activity: activity(h.id),
      };
    });
  }

  /**
   * All hosts, or those whose hostname, display name or any IP contains `q` (case-insensitive);
   * with `outdated`, only hosts whose agent is (or is not) older than its product's latest version;
   * with `group`, only that host group's members.
   */
  async list({ q, outdated, group, within = null, sort = 'hostname', dir = 'asc' }: HostListFilter = {}): Promise<HostView[]> {
    const needle = q?.trim().toLowerCase();
    const [fleet, members] = await Promise.all([this.store.hosts.list(), group === undefined ? null : this.groupHosts(group)]);
    const hosts = fleet.filter(
      (h) =>
        (!members || members.has(h.id)) &&
        (!within || within.has(h.id)) &&
        (!needle ||
        h.hostname.toLowerCase().includes(needle) ||
        (h.display_name ?? '').toLowerCase().includes(needle) ||
        (h.fqdn ?? '').toLowerCase().includes(needle) ||
          h.ips.some((ip) => ip.includes(needle))),
    );
    const views = await this.views(hosts, fleet);
    // Statuses are derived at read time, so the (complete, unpaged) list is sorted here, not in the store.
    const value = SORT_VALUE[sort];
    const sign = dir === 'asc' ? 1 : -1;
    return (outdated === undefined ? views : views.filter((v) => v.outdated === outdated)).sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      return sign * (x < y ? -1 : x > y ? 1 : 0) || a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id);
    });
  }

  async byId(id: string): Promise<HostDetailView> {
    const host = await this.store.hosts.byId(id);
    if (!host) throw hostNotFound(id);
    const [state, all] = await Promise.all([this.store.hostState.byHost(id), this.store.hosts.list()]);
    const [view] = await this.views([host], all);
    return {
      ...view,
      observed_ip: host.observed_ip,
      pinned_address: host.pinned_address,
      pinned_winrm_name: host.pinned_winrm_name,
      action_target: actionTargetOf(host, all),
      timezone: host.timezone,
      agent_instance_ids: host.agent_instance_ids,
      inventory: state?.inventory ?? null,
      previous_inventory: state?.previous_inventory ?? null,
      previous_inventory_at: state?.previous_inventory_ms != null ? iso(state.previous_inventory_ms) : null,
    };
  }

  /** The host whose id is `hostOrId`, else the hosts whose hostname contains it (case-insensitive: `RDG` names `rdg01`). */
  async resolveIds(hostOrId: string): Promise<string[]> {
    const byId = await this.store.hosts.byId(hostOrId);
    if (byId) return [byId.id];
    const name = hostOrId.toLowerCase();
    return (await this.store.hosts.list()).filter((h) => h.hostname.toLowerCase().includes(name)).map((h) => h.id);
  }

  /**
   * Pins where remote actions reach a host (admin): an IP literal or DNS name, not pinned by another
   * host (a pin must name one host), and optionally the name its WinRM HTTPS certificate carries.
   */
  async pin(id: string, input: Required<HostPinInput>, actor: Actor): Promise<HostDetailView> {
    const host = await this.store.hosts.byId(id);
    if (!host) throw hostNotFound(id);
    for (const [field, value] of [['address', input.address], ['winrm_name', input.winrm_name]] as const) {
      if (value !== null && !isTargetAddress(value)) throw invalidParameter(field, 'must be a host name (RFC 1123) or an IP address');
    }
    const taken = (await this.store.hosts.list()).filter(
      (h) => h.id !== id && [input.address, input.winrm_name].some((v) => v !== null && [lower(h.pinned_address), lower(h.pinned_winrm_name)].includes(lower(v))),
    );
    if (taken.length > 0) {
      throw new AppError('host/pin_conflict', `${input.address} is already pinned to ${taken.map((h) => h.hostname).join(', ')}; unpin it there first`, {
        details: { hosts: taken.map((h) => ({ id: h.id, hostname: h.hostname })) },
      });
    }
    const pin = { address: input.address, winrm_name: input.winrm_name };
    if (!(await this.store.hosts.setPin(id, pin))) throw hostNotFound(id);
    await this.audit.record({ action: 'host.address_pinned', actor, target: `host:${id}`, details: { hostname: host.hostname, ...pin } });
    return this.byId(id);
  }

  /** Removes a host's pin (admin); actions then go only to a verified observed address. */
  async unpin(id: string, actor: Actor): Promise<HostDetailView> {
    const host = await this.store.hosts.byId(id);
    if (!host || !(await this.store.hosts.setPin(id, null))) throw hostNotFound(id);
    await this.audit.record({ action: 'host.address_unpinned', actor, target: `host:${id}`, details: { hostname: host.hostname, address: host.pinned_address } });
    return this.byId(id);
  }

  /** Removes the host with its events and problems; the next event from it recreates the host. */
  async remove(id: string, actor: Actor, approved?: Approved): Promise<void> {
    const host = await this.store.hosts.byId(id);
    if (!host) throw hostNotFound(id);
    await this.approvals.assert({ kind: 'host_delete', host_id: id }, approved);
    if (!(await this.store.hosts.delete(id))) throw hostNotFound(id);
    await this.audit.record({ action: 'host.deleted', actor, target: `host:${id}`, details: { hostname: host.hostname, ...approvalAudit(approved) } });
    this.logger.info({ host_id: id, hostname: host.hostname, by: actor.user?.username }, 'host deleted');
  }
}
