import type { DeliveryStatus, DeliveryTopic, NotificationContent, NotifyChannel as Channel, ReportSummary } from '../../../shared/src/index.js';
import type { StoredEvent } from './events.types.js';

/** Outbox lifecycle, as the delivery log shows it (`DELIVERY_STATUSES`). */
export type OutboxStatus = DeliveryStatus;

/** What a notification is about; `ref` names the thing (event id, problem id, report id…). */
export type OutboxTopic = DeliveryTopic;

export interface OutboxAttempt {
  at_ms: number;
  ok: boolean;
  error: string | null;
  duration_ms: number;
}

/** One notification to one channel target; the outbox row is also its delivery log entry. */
export interface OutboxRecord {
  id: string;
  topic: OutboxTopic;
  channel: Channel;
  /** Telegram chat id or push subscription id; null for webhook and e-mail. */
  target: string | null;
  ref: string | null;
  content: NotificationContent;
  status: OutboxStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_ms: number;
  lease_until_ms: number | null;
  created_ms: number;
  updated_ms: number;
  sent_ms: number | null;
  last_error: string | null;
  /** The most recent attempts, oldest first (bounded). */
  history: OutboxAttempt[];
}

export interface OutboxFilter {
  status?: OutboxStatus;
  channel?: Channel;
  topic?: OutboxTopic;
  /** Only rows created before this instant (paging, newest first). */
  before_ms?: number;
  limit: number;
}

/** The outcome of one attempt, written together with the attempt's history entry. */
export interface OutboxAttemptResult {
  status: 'pending' | 'sent' | 'failed';
  next_attempt_ms: number;
  last_error: string | null;
  attempt: OutboxAttempt;
}

export interface OutboxRepo {
  insertMany(records: OutboxRecord[]): Promise<void>;
  /**
   * Atomically takes up to `limit` rows of `channel` that are due (pending with next attempt ≤ now,
   * or sending with an expired lease, i.e. a daemon died mid-delivery) and marks them sending
   * until `leaseUntilMs`. Two daemons never claim the same row.
   */
  claimDue(channel: Channel, nowMs: number, limit: number, leaseUntilMs: number): Promise<OutboxRecord[]>;
  /** Records an attempt and its outcome; `attempts` grows by one; the lease is released. */
  recordAttempt(id: string, result: OutboxAttemptResult): Promise<void>;
  byId(id: string): Promise<OutboxRecord | null>;
  /** Rows waiting for a delivery attempt (pending), for the outbox depth in /metrics. */
  countPending(): Promise<number>;
  list(filter: OutboxFilter): Promise<OutboxRecord[]>;
  /** Makes a pending or failed row due now (granting one more attempt when all were used); null when not retryable. */
  retryNow(id: string, nowMs: number): Promise<OutboxRecord | null>;
  /** Channels of the rows about `ref` with `topic` that are not failed. */
  carriers(topic: OutboxTopic, ref: string): Promise<Channel[]>;
  /** Deletes sent and failed rows created before `beforeMs` (delivery log retention); returns how many. */
  prune(beforeMs: number): Promise<number>;
}

/** A browser's or device's push subscription (the W3C PushSubscription JSON). */
export interface PushSubscriptionRecord {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  user_id: string | null;
  label: string | null;
  created_ms: number;
}

/** `other_user`: the endpoint is registered to someone else; `limit`: the user has `maxPerUser` already. */
export type PushUpsert = { status: 'ok'; record: PushSubscriptionRecord } | { status: 'other_user' } | { status: 'limit' };

export interface PushRepo {
  /**
   * Inserts, or refreshes the keys of the same user's subscription with the same endpoint (keeping
   * its id). Never moves an endpoint to another user, and never gives a user more than `maxPerUser`.
   */
  upsert(record: PushSubscriptionRecord, maxPerUser: number): Promise<PushUpsert>;
  /** Removes every subscription of the user; returns how many. */
  removeByUser(userId: string): Promise<number>;
  list(): Promise<PushSubscriptionRecord[]>;
  byId(id: string): Promise<PushSubscriptionRecord | null>;
  remove(id: string): Promise<boolean>;
  /** The stored VAPID key pair; `candidate` is stored first if none is (race-safe across daemons). */
  ensureVapidKeys(candidate: { publicKey: string; privateKey: string }): Promise<{ publicKey: string; privateKey: string }>;
}

/** A generated daily SSH/RDP report. */
export interface DailyReportRecord {
  id: string;
  /** Local calendar day (report time zone) the report is for. */
  day: string;
  trigger: 'schedule' | 'manual';
  requested_by: string | null;
  created_ms: number;
  period_from_ms: number;
  period_to_ms: number;
  summary: ReportSummary;
  html: string;
  /** The host group the report covers; null: the whole fleet (every scheduled report). */
  group_id: string | null;
  group_name: string | null;
  /** The group's hosts when it was generated (what a user limited to host groups needs to see it); null: the whole fleet. */
  host_ids: string[] | null;
}

export type DailyReportListItem = Omit<DailyReportRecord, 'html'>;

export interface ReportsRepo {
  /**
   * Claims the scheduled report of `day` for `owner`: true for exactly one daemon, unless that
   * one's lease ran out without finishing (it died), when the next claim takes over.
   */
  claimDay(day: string, owner: string, nowMs: number, leaseUntilMs: number): Promise<boolean>;
  /** Marks the day done so it is never claimed again. */
  finishDay(day: string, owner: string, reportId: string): Promise<void>;
  insert(report: DailyReportRecord): Promise<void>;
  /** Newest first; `groupId`: only the reports of that host group. */
  list(limit: number, beforeMs?: number, groupId?: string): Promise<DailyReportListItem[]>;
  byId(id: string): Promise<DailyReportRecord | null>;
  /** `report.daily.*` events received in [fromMs, toMs). */
  agentReports(fromMs: number, toMs: number): Promise<StoredEvent[]>;
}
