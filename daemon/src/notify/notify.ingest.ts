import { randomUUID } from 'node:crypto';
import { agentValue, type EventNotice, type NotificationContent, type NotifyChannel, type ProblemFacts, type ProblemNotice, type StreamProblem } from '../../../shared/src/index.js';
import { streamProblem } from '../correlation/index.js';
import type { DomainFact } from '../facts.js';
import type { GroupHost } from '../groups/index.js';
import { namesGroups, suppressingWindow, type InForceWindow } from '../maintenance/index.js';
import type { CommittedEvent, HostsRepo, OutboxRecord, OutboxRepo, OutboxTopic, ProblemsRepo } from '../store/index.js';
import { eventChannels, problemOpenedChannels, problemResolvedChannels, type Policy } from './notify.rules.js';

/**
 * What turns facts into outbox rows: plain data without secrets, so it can be handed to the
 * ingest thread with each batch.
 */
export interface EventNotifyPlan {
  policy: Policy;
  /** The configured channels, each with its targets (chat ids, push subscriptions; `null` for one-target channels). */
  targets: Partial<Record<NotifyChannel, (string | null)[]>>;
  maxAttempts: number;
  /** Maintenance windows that can be in force now or later, with the groups they name: matching notifications are recorded as suppressed. */
  windows: InForceWindow[];
}

/** The notification view of a committed event. */
export function eventNotice(c: CommittedEvent): EventNotice {
  const d = c.event.details ?? {};
  return {
    event_id: c.event.event_id,
    type: c.event.type,
    severity: c.event.severity,
    title: c.event.title,
    summary: c.event.summary ?? null,
    hostname: c.event.host.hostname,
    host_display: c.event.host.display_name ?? null,
    occurred_at: c.event.occurred_at,
    actor_user: c.actor_user,
    ip: agentValue(d.ip_address) ?? agentValue(d.source_ip) ?? agentValue(d.external_ip),
  };
}

/** One pending outbox row per channel and target. */
export function outboxRows(
  row: { topic: OutboxTopic; ref: string | null; content: NotificationContent },
  channels: readonly NotifyChannel[],
  targets: Partial<Record<NotifyChannel, (string | null)[]>>,
  maxAttempts: number,
  nowMs: number,
): OutboxRecord[] {
  return channels.flatMap((channel) =>
    (targets[channel] ?? []).map(
      (target): OutboxRecord => ({
        id: randomUUID(),
        ...row,
        channel,
        target,
        status: 'pending',
        attempts: 0,
        max_attempts: maxAttempts,
        next_attempt_ms: nowMs,
        lease_until_ms: null,
        created_ms: nowMs,
        updated_ms: nowMs,
        sent_ms: null,
        last_error: null,
        history: [],
      }),
    ),
  );
}

/** A row held back by a maintenance window: kept in the delivery log, never delivered. */
export function suppressed(row: OutboxRecord, windowId: string): OutboxRecord {
  return { ...row, status: 'suppressed', last_error: `held back by maintenance window ${windowId}` };
}

/** The notification view of a problem, with its facts as they stand when the notice is built. */
export function problemNotice(p: StreamProblem, facts: ProblemFacts): ProblemNotice {
  const { id, host_id, hostname, type, rule, severity, title, status, count, first_seen, last_seen } = p;
  return { id, host_id, hostname, type, rule, severity, title, status, count, first_seen, last_seen, facts };
}

/** The event's host as the event reports it (what a window naming groups matches against). */
function eventHost(c: CommittedEvent): GroupHost {
  const { hostname, fqdn, os_family, agent_product, ipv4, observed_ip } = c.host;
  return { id: c.host_id, hostname, fqdn: fqdn ?? null, os_family, agent_product, ips: ipv4 ? [ipv4] : [], ipv4: ipv4 ?? null, observed_ip: observed_ip ?? null };
}

/** The window in force holding back notifications about a problem; its host is read only when a window names groups. */
export async function problemHeldBy(
  windows: readonly InForceWindow[],
  p: { host_id: string; hostname: string; type: string; rule: string },
  nowMs: number,
  hosts: Pick<HostsRepo, 'byId'>,
): Promise<InForceWindow | null> {
  if (windows.length === 0) return null;
  const host = namesGroups(windows) ? ((await hosts.byId(p.host_id)) ?? undefined) : undefined;
  return suppressingWindow(windows, { hostname: p.hostname, type: p.type, rule: p.rule, host }, nowMs);
}

/** The outbox rows of one committed event, by the plan (none for most: the policy sends few types). */
function eventRows(c: CommittedEvent, plan: EventNotifyPlan, configured: NotifyChannel[], nowMs: number): OutboxRecord[] {
  const channels = eventChannels({ type: c.event.type, severity: c.event.severity, telegram_via: c.event.details?.telegram_via }, plan.policy, configured);
  if (channels.length === 0) return [];
  const host = namesGroups(plan.windows) ? eventHost(c) : undefined;
  const held = plan.windows.length > 0 ? suppressingWindow(plan.windows, { hostname: c.event.host.hostname, type: c.event.type, host }, nowMs) : null;
  const built = outboxRows({ topic: 'event', ref: c.event.event_id, content: { kind: 'event', event: eventNotice(c) } }, channels, plan.targets, plan.maxAttempts, nowMs);
  return held ? built.map((r) => suppressed(r, held.id)) : built;
}

/**
 * The outbox rows of facts, by the plan — the one builder, inside ingest's commit and in the
 * notifier for facts committed elsewhere: committed events to the channels the policy picks; a
 * problem opened to the channels its severity reaches (held back by a maintenance window in
 * force), a resolution to the channels that carried the opening (read in the caller's commit).
 * Sign-in locks are the notifier's own (they need its settings). Cheap for events the policy
 * does not send: one function call each.
 */
export async function factNotificationRows(
  facts: readonly DomainFact[],
  plan: EventNotifyPlan,
  nowMs: number,
  store: { outbox: Pick<OutboxRepo, 'carriers'>; problems: Pick<ProblemsRepo, 'facts'>; hosts: Pick<HostsRepo, 'byId'> },
): Promise<OutboxRecord[]> {
  const configured = Object.keys(plan.targets) as NotifyChannel[];
  const rows: OutboxRecord[] = [];
  for (const fact of facts) {
    if (fact.type === 'events.committed') {
      for (const c of fact.events) rows.push(...eventRows(c, plan, configured, nowMs));
    } else if (fact.type === 'problem.opened') {
      const p = streamProblem(fact.problem);
      const channels = problemOpenedChannels(p, plan.policy, configured);
      if (channels.length === 0) continue;
      const problem = problemNotice(p, await store.problems.facts(p.id));
      const built = outboxRows({ topic: 'problem.opened', ref: p.id, content: { kind: 'problem', action: 'opened', problem } }, channels, plan.targets, plan.maxAttempts, nowMs);
      const held = await problemHeldBy(plan.windows, p, nowMs, store.hosts);
      rows.push(...(held ? built.map((r) => suppressed(r, held.id)) : built));
    } else if (fact.type === 'problem.resolved') {
      const p = streamProblem(fact.problem);
      const channels = problemResolvedChannels(await store.outbox.carriers('problem.opened', p.id), plan.policy, configured);
      if (channels.length === 0) continue;
      const problem = problemNotice(p, await store.problems.facts(p.id));
      rows.push(...outboxRows({ topic: 'problem.resolved', ref: p.id, content: { kind: 'problem', action: 'resolved', problem } }, channels, plan.targets, plan.maxAttempts, nowMs));
    }
  }
  return rows;
}
