import { isOutdated } from '../updates/index.js';
import type { Logger } from 'pino';
import type { HostDetailView, HostView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import {
  formatSilence,
  hostStatus,
  problemFingerprint,
  problemKey,
  silenceAction,
  staleMinutesFor,
  streamProblem,
  type CorrelationSettings,
  type CorrelationSettingsSource,
  type HostStatus,
  type LivenessSink,
} from '../correlation/index.js';
import { AppError } from '../errors.js';
import type { Host, HostState, Store } from '../store/index.js';

const iso = (ms: number) => new Date(ms).toISOString();
const silenceKey = (hostId: string) => problemKey(hostId, 'host.silence', 'host_silence');

/** Liveness time of a host: its last heartbeat or daily report, else its first event. */
function lastSeenMs(host: Host, state: HostState | undefined): number {
  return state?.heartbeat_ms ?? host.first_seen_ms;
}

export function hostNotFound(id: string): AppError {
  return new AppError('host/not_found', 'No such host', { details: { id } });
}

/**
 * Hosts: liveness (online/stale) from heartbeats and daily reports, the silence scan with its
 * `host_silence` problem (auto-resolved by a heartbeat, not reopened within the cooldown after a
 * manual resolve), the host list and detail with inventory, and deletion.
 */
export class HostsService implements LivenessSink {
  constructor(
    private readonly store: Store,
    private readonly bus: Bus,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
    /** Hosts whose silence a maintenance window holds back now: no `host_silence` is opened for them. */
    private readonly maintenance?: { silencedHosts(nowMs: number): Promise<(hostname: string) => boolean> },
    /** Each product's latest agent version read from git (the outdated badge). */
    private readonly latestVersions: () => Promise<Map<string, string>> = async () => new Map(),
  ) {}

  private statusOf(host: Host, state: HostState | undefined, settings: CorrelationSettings, now: number): HostStatus {
    const minutes = staleMinutesFor(host.agent_product, settings.staleMinutes, settings.staleMinutesByProduct);
    return hostStatus(lastSeenMs(host, state), now, minutes);
  }

  /** A heartbeat or daily report: raise last-seen, announce `online`, and auto-resolve the silence problem. */
  async recordLiveness(items: { host_id: string; hostname: string; at_ms: number }[]): Promise<void> {
    await this.store.hostState.recordHeartbeats(items.map((i) => ({ host_id: i.host_id, at_ms: i.at_ms })));
    const hostnames = new Map(items.map((i) => [i.host_id, i.hostname]));
    for (const [hostId, hostname] of hostnames) {
      if (await this.store.hostState.setStatus(hostId, 'online')) {
        this.bus.publish({ type: 'host.status_changed', data: { host_id: hostId, hostname, status: 'online' } });
      }
    }
    const silences = await this.store.problems.byKeys([...hostnames.keys()].map(silenceKey));
    const now = this.clock.now();
    for (const p of silences) {
      if (p.status === 'resolved') continue;
      const resolved = await this.store.problems.transition(p.id, ['open', 'acknowledged'], {
        status: 'resolved',
        now_ms: now,
        resolved_by: 'auto',
        resolved_by_user: null,
      });
      if (resolved) this.bus.publish({ type: 'problem.resolved', data: streamProblem(resolved) });
    }
  }

  /**
   * The silence scan: announces status changes, opens one `host_silence` problem per stale host
   * (or reopens the same one), respecting the cooldown after a manual resolve.
   */
  async scanSilence(): Promise<void> {
    const settings = await this.settings();
    const now = this.clock.now();
    const [hosts, states] = await Promise.all([this.store.hosts.list(), this.store.hostState.list()]);
    const stateOf = new Map(states.map((s) => [s.host_id, s]));
    const stale: Host[] = [];
    for (const host of hosts) {
      const state = stateOf.get(host.id);
      const status = this.statusOf(host, state, settings, now);
      if (status === 'stale') stale.push(host);
      // A host never announced counts as online, so only a change to stale is news for it.
      if ((state?.status ?? 'online') !== status && (await this.store.hostState.setStatus(host.id, status))) {
        this.bus.publish({ type: 'host.status_changed', data: { host_id: host.id, hostname: host.hostname, status } });
        this.logger.info({ host_id: host.id, hostname: host.hostname, status }, 'host status changed');
      }
    }
    if (stale.length === 0) return;
    const silenced = this.maintenance ? await this.maintenance.silencedHosts(now) : () => false;
    const problems = new Map((await this.store.problems.byKeys(stale.map((h) => silenceKey(h.id)))).map((p) => [p.host_id, p]));
    for (const host of stale) {
      if (silenced(host.hostname)) continue;
      const problem = problems.get(host.id) ?? null;
      const action = silenceAction('stale', problem, now, settings.silenceCooldownMinutes);
      if (action === 'none') continue;
      const title = `No heartbeat from ${host.hostname} for ${formatSilence(now - lastSeenMs(host, stateOf.get(host.id)))}`;
      const changed =
        action === 'open'
          ? await this.store.problems.openSilence({
              key: silenceKey(host.id),
              fingerprint: problemFingerprint(silenceKey(host.id)),
              host_id: host.id,
              hostname: host.hostname,
              title,
              now_ms: now,
            })
          : await this.store.problems.reopenSilence(problem!.id, problem!.resolved_ms, now, title);
      if (changed) {
        this.bus.publish({ type: 'problem.opened', data: streamProblem(changed) });
        this.logger.info({ problem_id: changed.id, host_id: host.id, action }, 'host silence problem opened');
      }
    }
  }

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
        status: this.statusOf(h, state, settings, now),
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
