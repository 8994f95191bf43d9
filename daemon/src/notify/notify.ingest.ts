import { randomUUID } from 'node:crypto';
import { agentValue, type EventNotice, type NotificationContent, type NotifyChannel, type ProblemNotice, type StreamProblem } from '../../../shared/src/index.js';
import type { BusMessage } from '../bus.js';
import { suppressingWindow } from '../maintenance/index.js';
import type { CommittedEvent, MaintenanceWindowRecord, OutboxRecord, OutboxRepo, OutboxTopic } from '../store/index.js';
import { eventChannels, problemOpenedChannels, problemResolvedChannels, type Policy } from './notify.rules.js';

/**
 * What ingest needs to turn a batch's events and problems into outbox rows: plain data without
 * secrets, so it can be handed to the ingest thread with each batch.
 */
export interface EventNotifyPlan {
  policy: Policy;
  /** The configured channels, each with its targets (chat ids, push subscriptions; `null` for one-target channels). */
  targets: Partial<Record<NotifyChannel, (string | null)[]>>;
  maxAttempts: number;
  /** Maintenance windows that can be in force now or later: matching notifications are recorded as suppressed. */
  windows: MaintenanceWindowRecord[];
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

/** The notification view of a problem. */
export function problemNotice(p: StreamProblem): ProblemNotice {
  const { id, host_id, hostname, type, rule, severity, title, status, count, first_seen, last_seen } = p;
  return { id, host_id, hostname, type, rule, severity, title, status, count, first_seen, last_seen };
}

/**
 * The outbox rows of a committed batch's events, by the plan. Cheap: events the policy does not
 * send cost one function call each.
 */
export function eventNotificationRows(committed: readonly CommittedEvent[], plan: EventNotifyPlan, nowMs: number): OutboxRecord[] {
  const configured = Object.keys(plan.targets) as NotifyChannel[];
  const rows: OutboxRecord[] = [];
  for (const c of committed) {
    const channels = eventChannels(
      { type: c.event.type, severity: c.event.severity, telegram_via: c.event.details?.telegram_via },
      plan.policy,
      configured,
    );
    if (channels.length === 0) continue;
    const held = plan.windows.length > 0 ? suppressingWindow(plan.windows, { hostname: c.event.host.hostname, type: c.event.type }, nowMs) : null;
    const built = outboxRows({ topic: 'event', ref: c.event.event_id, content: { kind: 'event', event: eventNotice(c) } }, channels, plan.targets, plan.maxAttempts, nowMs);
    rows.push(...(held ? built.map((r) => suppressed(r, held.id)) : built));
  }
  return rows;
}

/**
 * The outbox rows of the problems a batch opened or resolved (its stream messages), by the plan:
 * an opening to the channels its severity reaches (held back by a maintenance window in force), a
 * resolution to the channels that carried the opening. Reads the carriers in the caller's commit.
 */
export async function problemNotificationRows(
  messages: readonly BusMessage[],
  plan: EventNotifyPlan,
  nowMs: number,
  outbox: Pick<OutboxRepo, 'carriers'>,
): Promise<OutboxRecord[]> {
  const configured = Object.keys(plan.targets) as NotifyChannel[];
  const rows: OutboxRecord[] = [];
  for (const m of messages) {
    if (m.type === 'problem.opened') {
      const p = m.data;
      const channels = problemOpenedChannels(p, plan.policy, configured);
      const built = outboxRows({ topic: 'problem.opened', ref: p.id, content: { kind: 'problem', action: 'opened', problem: problemNotice(p) } }, channels, plan.targets, plan.maxAttempts, nowMs);
      const held = suppressingWindow(plan.windows, { hostname: p.hostname, type: p.type, rule: p.rule }, nowMs);
      rows.push(...(held ? built.map((r) => suppressed(r, held.id)) : built));
    } else if (m.type === 'problem.resolved') {
      const p = m.data;
      const channels = problemResolvedChannels(await outbox.carriers('problem.opened', p.id), plan.policy, configured);
      rows.push(...outboxRows({ topic: 'problem.resolved', ref: p.id, content: { kind: 'problem', action: 'resolved', problem: problemNotice(p) } }, channels, plan.targets, plan.maxAttempts, nowMs));
    }
  }
  return rows;
}
