import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { errorSummary } from '../errors.js';
import { suppressingWindow } from '../maintenance/index.js';
import type { CommittedEvent, MaintenanceWindowRecord, OutboxRecord, OutboxRepo, OutboxTopic } from '../store/index.js';
import { eventChannels, type Policy } from './notify.rules.js';
import type { EventNotice, NotificationContent } from '../../../shared/src/index.js';
import type { Channel } from './notify.types.js';

/**
 * What the ingest listener needs to turn committed events into outbox rows: plain data without
 * secrets, so it can be handed to the ingest thread with each batch.
 */
export interface EventNotifyPlan {
  policy: Policy;
  /** The configured channels, each with its targets (chat ids, push subscriptions; `null` for one-target channels). */
  targets: Partial<Record<Channel, (string | null)[]>>;
  maxAttempts: number;
  /** Maintenance windows that can be in force now or later: matching notifications are recorded as suppressed. */
  windows: MaintenanceWindowRecord[];
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' && v !== '-' && v !== 'N/A' ? v : null;
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
    ip: text(d.ip_address) ?? text(d.source_ip) ?? text(d.external_ip),
  };
}

/** One pending outbox row per channel and target. */
export function outboxRows(
  row: { topic: OutboxTopic; ref: string | null; content: NotificationContent },
  channels: readonly Channel[],
  targets: Partial<Record<Channel, (string | null)[]>>,
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

/**
 * The ingest listener that records a committed batch's event notifications — in the batch's commit,
 * so they are durable before the 201s. Cheap: events the policy does not send cost one function
 * call each, and one batch writes its rows in one insert. Never throws: a failed insert is logged
 * loudly and reported through `onLost` (ingest must succeed whatever happens here).
 */
export function eventNotificationListener(deps: {
  outbox: Pick<OutboxRepo, 'insertMany'>;
  plan: () => EventNotifyPlan | null;
  clock: Clock;
  logger: Logger;
  onRecorded: (rows: number) => void;
  onLost: (rows: number) => void;
}): (committed: CommittedEvent[]) => Promise<void> {
  return async (committed) => {
    const plan = deps.plan();
    if (!plan) return;
    const configured = Object.keys(plan.targets) as Channel[];
    const now = deps.clock.now();
    const rows: OutboxRecord[] = [];
    for (const c of committed) {
      const channels = eventChannels(
        { type: c.event.type, severity: c.event.severity, telegram_via: c.event.details?.telegram_via },
        plan.policy,
        configured,
      );
      if (channels.length > 0) {
        const held = plan.windows.length > 0 ? suppressingWindow(plan.windows, { hostname: c.event.host.hostname, type: c.event.type }, now) : null;
        const built = outboxRows({ topic: 'event', ref: c.event.event_id, content: { kind: 'event', event: eventNotice(c) } }, channels, plan.targets, plan.maxAttempts, now);
        rows.push(...(held ? built.map((r) => suppressed(r, held.id)) : built));
      }
    }
    if (rows.length === 0) return;
    try {
      await deps.outbox.insertMany(rows);
      deps.onRecorded(rows.length);
    } catch (err) {
      deps.logger.error({ err: errorSummary(err), notifications: rows.length }, 'event notifications not recorded');
      deps.onLost(rows.length);
    }
  };
}
