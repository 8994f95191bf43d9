import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import {
  ANY_HOST,
  formatSilence,
  massSilenceGroup,
  massSilenceTitle,
  hostStatus,
  problemFingerprint,
  problemKey,
  silenceAction,
  staleMinutesFor,
  type CorrelationSettings,
  type CorrelationSettingsSource,
  type HostStatus,
  type SilenceOnset,
} from '../correlation/index.js';
import type { DomainFact, Facts } from '../facts.js';
import type { Fence } from '../jobs/index.js';
import type { Host, HostState, Store } from '../store/index.js';

/*
 * Liveness: online/stale from heartbeats and daily reports, and the `host_silence` problem of a
 * stale host (auto-resolved by a heartbeat, not reopened within the cooldown after a manual resolve).
 */

const silenceKey = (hostId: string) => problemKey(hostId, 'host.silence', 'host_silence');
const MASS_SILENCE_KEY = problemKey(ANY_HOST, 'host.silence', 'mass_silence');

/** Liveness time of a host: its last heartbeat or daily report, else its first event. */
export function lastSeenMs(host: Host, state: HostState | undefined): number {
  return state?.heartbeat_ms ?? host.first_seen_ms;
}

export function hostStatusOf(host: Host, state: HostState | undefined, settings: CorrelationSettings, now: number): HostStatus {
  const minutes = staleMinutesFor(host.agent_product, settings.staleMinutes, settings.staleMinutesByProduct);
  return hostStatus(lastSeenMs(host, state), now, minutes);
}

/** When a host turned stale: its last-seen plus its stale threshold. */
function staleSince(host: Host, state: HostState | undefined, settings: CorrelationSettings): number {
  return lastSeenMs(host, state) + staleMinutesFor(host.agent_product, settings.staleMinutes, settings.staleMinutesByProduct) * 60_000;
}

/**
 * Ingest's liveness step for heartbeats and daily reports: raises last-seen, sets the hosts
 * online and auto-resolves their silence problems. Returns what changed (facts).
 */
export async function recordLiveness(
  store: Pick<Store, 'hostState' | 'problems'>,
  items: { host_id: string; hostname: string; at_ms: number }[],
  nowMs: number,
): Promise<DomainFact[]> {
  const facts: DomainFact[] = [];
  // The heartbeat and the status go in one write per host, which tells the hosts it set online.
  const changed = new Set(await store.hostState.recordHeartbeats(items.map((i) => ({ host_id: i.host_id, at_ms: i.at_ms }))));
  const hostnames = new Map(items.map((i) => [i.host_id, i.hostname]));
  for (const [hostId, hostname] of hostnames) {
    if (changed.has(hostId)) facts.push({ type: 'host.status_changed', host_id: hostId, hostname, status: 'online' });
  }
  const silences = await store.problems.byKeys([...hostnames.keys()].map(silenceKey));
  for (const p of silences) {
    if (p.status === 'resolved') continue;
    const resolved = await store.problems.transition(p.id, ['open', 'acknowledged'], {
      status: 'resolved',
      now_ms: nowMs,
      resolved_by: 'auto',
      resolved_by_user: null,
    });
    if (resolved) facts.push({ type: 'problem.resolved', problem: resolved });
  }
  return facts;
}

/** The periodic silence scan (a job on one daemon). */
export class SilenceScanner {
  constructor(
    private readonly store: Pick<Store, 'hosts' | 'hostState' | 'problems'>,
    private readonly facts: Pick<Facts, 'publish'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: CorrelationSettingsSource,
    /** Hosts whose silence a maintenance window holds back now: no `host_silence` is opened for them. */
    private readonly maintenance?: { silencedHosts(nowMs: number): Promise<(host: Host) => boolean> },
  ) {}

  /**
   * The silence scan: announces status changes, opens one `host_silence` problem per stale host
   * (or reopens the same one), respecting the cooldown after a manual resolve.
   *
   * Runs as the `host_silence` leader job. Each write is re-fenced just before it (a scan replaced
   * while paused stops) and is a compare-and-set (status changes only from another status, a
   * silence problem opens only when none is open, reopens only from the resolution it read), so a
   * replaced scan that passed its check in the same instant as the new leader writes nothing twice.
   */
  async scan(fence: Fence): Promise<void> {
    const settings = await this.settings();
    const now = this.clock.now();
    const [hosts, states] = await Promise.all([this.store.hosts.list(), this.store.hostState.list()]);
    const stateOf = new Map(states.map((s) => [s.host_id, s]));
    const stale: Host[] = [];
    for (const host of hosts) {
      const state = stateOf.get(host.id);
      const status = hostStatusOf(host, state, settings, now);
      if (status === 'stale') stale.push(host);
      // A host never announced counts as online, so only a change to stale is news for it.
      if ((state?.status ?? 'online') !== status) {
        await fence.check();
        if (await this.store.hostState.setStatus(host.id, status)) {
          await this.facts.publish([{ type: 'host.status_changed', host_id: host.id, hostname: host.hostname, status }], 'service');
          this.logger.info({ host_id: host.id, hostname: host.hostname, status }, 'host status changed');
        }
      }
    }
    const silenced = stale.length > 0 && this.maintenance ? await this.maintenance.silencedHosts(now) : () => false;
    const onsets = stale.filter((h) => !silenced(h)).map((host) => ({ host, onset_ms: staleSince(host, stateOf.get(host.id), settings) }));
    const lastSeen = new Map(onsets.map(({ host }) => [host.id, lastSeenMs(host, stateOf.get(host.id))]));
    const mass = await this.massSilence(onsets, lastSeen, hosts.length, settings, now, fence);
    if (stale.length === 0) return;
    const problems = new Map((await this.store.problems.byKeys(stale.map((h) => silenceKey(h.id)))).map((p) => [p.host_id, p]));
    for (const host of stale) {
      if (silenced(host)) continue;
      // A host of a mass silence raises its own problem only once silent past the grace.
      const since = mass.get(host.id);
      if (since !== undefined && now - since < settings.crossHost.massSilence.graceMs) continue;
      const problem = problems.get(host.id) ?? null;
      const action = silenceAction('stale', problem, now, settings.silenceCooldownMinutes);
      if (action === 'none') continue;
      await fence.check();
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
        await this.facts.publish([{ type: 'problem.opened', problem: changed }], 'service');
        this.logger.info({ problem_id: changed.id, host_id: host.id, action }, 'host silence problem opened');
      }
    }
  }

  /**
   * The `mass_silence` problem: opened once when more than the share of hosts turned stale
   * together (not again for the same mass after an operator resolved it), auto-resolved once they
   * no longer are (enough came back). Returns the hosts of the mass with their onsets.
   */
  private async massSilence(
    onsets: SilenceOnset<Host>[],
    lastSeen: ReadonlyMap<string, number>,
    totalHosts: number,
    settings: CorrelationSettings,
    now: number,
    fence: Fence,
  ): Promise<Map<string, number>> {
    const rule = settings.crossHost.massSilence;
    const group = massSilenceGroup(onsets, totalHosts, rule);
    const [latest] = await this.store.problems.list({ rule: 'mass_silence', hidden: [], limit: 1, sort: 'first_seen', dir: 'desc' });
    const active = latest && latest.status !== 'resolved' ? latest : null;
    if (!group) {
      if (active) {
        await fence.check();
        const resolved = await this.store.problems.transition(active.id, ['open', 'acknowledged'], { status: 'resolved', now_ms: now, resolved_by: 'auto', resolved_by_user: null });
        if (resolved) {
          await this.facts.publish([{ type: 'problem.resolved', problem: resolved }], 'service');
          this.logger.info({ problem_id: resolved.id }, 'mass silence problem resolved');
        }
      }
      return new Map();
    }
    const first = group[0];
    const last = group[group.length - 1];
    // The latest mass problem covers this mass when it began within it (its first onset is kept as first_seen).
    if (!latest || latest.first_seen_ms < first.onset_ms - rule.withinMs) {
      await fence.check();
      const [{ problem, created }] = await this.store.problems.upsertMatchMany([
        {
          key: MASS_SILENCE_KEY,
          fingerprint: problemFingerprint(MASS_SILENCE_KEY),
          rule: 'mass_silence',
          type: 'host.silence',
          host_id: first.host.id,
          hostname: first.host.hostname,
          title: massSilenceTitle(group.map((o) => o.host.hostname).sort(), totalHosts),
          severity: rule.severity,
          window_ms: rule.withinMs,
          first_ms: first.onset_ms,
          last_ms: last.onset_ms,
          count: group.length,
          now_ms: now,
          links: [],
          evidence: {
            kind: 'mass_silence',
            hosts: group.map(({ host }) => ({ host_id: host.id, hostname: host.hostname, last_seen: new Date(lastSeen.get(host.id)!).toISOString() })),
            share_percent: Math.round((group.length * 100) / totalHosts),
          },
        },
      ]);
      if (problem && created) {
        await this.facts.publish([{ type: 'problem.opened', problem }], 'service');
        this.logger.info({ problem_id: problem.id, hosts: group.length, of: totalHosts }, 'mass silence problem opened');
      }
    }
    return new Map(group.map((o) => [o.host.id, o.onset_ms]));
  }
}
