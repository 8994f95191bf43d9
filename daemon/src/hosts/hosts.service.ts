import type { Logger } from 'pino';
import type { HostDetailView, HostView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import type { CorrelationSettingsSource } from '../correlation/index.js';
import { AppError } from '../errors.js';
import type { Host, Store } from '../store/index.js';
import { isOutdated } from '../updates/index.js';
import { hostStatusOf, lastSeenMs } from './liveness.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function hostNotFound(id: string): AppError {
  return new AppError('host/not_found', 'No such host', { details: { id } });
}

/**
 * Hosts: the host list and detail with status (liveness.ts), inventory and open problems, and
 * deletion.
 */
export class HostsService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
    /** Each product's latest agent version read from git (the outdated badge). */
    private readonly latestVersions: () => Promise<Map<string, string>> = async () => new Map(),
  ) {}

  private async views(hosts: Host[]): Promise<HostView[]> {
    const settings = await this.settings();
    const now = this.clock.now();
    const [states, counts, latest] = await Promise.all([
      this.store.hostState.list(),
      this.store.problems.activeCountsByHost(settings.hiddenTypes),
      this.latestVersions(),
    ]);
    const stateOf = new Map(states.map((s) => [s.host_id, s]));
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
        agent_instance_id: h.agent_instance_id,
        ssh_admin_ok: h.ssh_admin_ok,
        ssh_admin_checked_at: h.ssh_admin_checked_at === null ? null : iso(h.ssh_admin_checked_at),
        status: hostStatusOf(h, state, settings, now),
        last_seen: iso(lastSeenMs(h, state)),
        last_event_at: iso(h.last_seen_ms),
        first_seen: iso(h.first_seen_ms),
        open_problems: counts.get(h.id) ?? 0,
      };
    });
  }

  /**
   * All hosts, or those whose hostname, display name or any IP contains `q` (case-insensitive);
   * with `outdated`, only hosts whose agent is (or is not) older than its product's latest version.
   */
  async list(q?: string, outdated?: boolean): Promise<HostView[]> {
    const needle = q?.trim().toLowerCase();
    const hosts = (await this.store.hosts.list()).filter(
      (h) =>
        !needle ||
        h.hostname.toLowerCase().includes(needle) ||
        (h.display_name ?? '').toLowerCase().includes(needle) ||
        (h.fqdn ?? '').toLowerCase().includes(needle) ||
        h.ips.some((ip) => ip.includes(needle)),
    );
    const views = await this.views(hosts);
    return outdated === undefined ? views : views.filter((v) => v.outdated === outdated);
  }

  async byId(id: string): Promise<HostDetailView> {
    const host = await this.store.hosts.byId(id);
    if (!host) throw hostNotFound(id);
    const [view] = await this.views([host]);
    const state = await this.store.hostState.byHost(id);
    return {
      ...view,
      timezone: host.timezone,
      agent_instance_ids: host.agent_instance_ids,
      inventory: state?.inventory ?? null,
      inventory_at: state?.inventory_ms != null ? iso(state.inventory_ms) : null,
      previous_inventory: state?.previous_inventory ?? null,
      previous_inventory_at: state?.previous_inventory_ms != null ? iso(state.previous_inventory_ms) : null,
    };
  }

  /** Host ids whose id or hostname (case-insensitive) equals `hostOrId`. */
  async resolveIds(hostOrId: string): Promise<string[]> {
    const byId = await this.store.hosts.byId(hostOrId);
    if (byId) return [byId.id];
    const name = hostOrId.toLowerCase();
    return (await this.store.hosts.list()).filter((h) => h.hostname.toLowerCase() === name).map((h) => h.id);
  }

  /** Removes the host with its events and problems; the next event from it recreates the host. */
  async remove(id: string, actor: Actor): Promise<void> {
    const host = await this.store.hosts.byId(id);
    if (!host || !(await this.store.hosts.delete(id))) throw hostNotFound(id);
    await this.audit.record({ action: 'host.deleted', actor, target: `host:${id}`, details: { hostname: host.hostname } });
    this.logger.info({ host_id: id, hostname: host.hostname, by: actor.user?.username }, 'host deleted');
  }
}
