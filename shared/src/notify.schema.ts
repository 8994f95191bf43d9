import { z } from 'zod';
import type { Severity } from './event.schema.js';
import type { StreamProblem } from './stream.types.js';
import type { ProblemFacts } from './read-api.schema.js';
import type { ApprovalRequestView } from './approvals.schema.js';

/** Notification channels (policy `enabled_channels`, delivery log `channel`). */
export const NOTIFY_CHANNELS = ['telegram', 'webhook', 'smtp', 'push'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** Languages notifications, reports and the console are written in. */
export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

/**
 * Delivery states of a notification in the delivery log: `pending` (waiting for its next attempt)
 * → `sending` (claimed under a lease) → `sent` | `failed`; `suppressed`: held back by a maintenance
 * window, recorded for the log and never delivered.
 */
export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed', 'suppressed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What a notification is about (the delivery log's `topic`). */
export const DELIVERY_TOPICS = ['event', 'problem.opened', 'problem.resolved', 'problem.escalated', 'report', 'test', 'login_locked', 'approval.requested'] as const;
export type DeliveryTopic = (typeof DELIVERY_TOPICS)[number];

/** 0–65535, leading zeros allowed as URL parsing allows them. */
const PORT = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
/** A DNS name whose last label starts with a letter; no `--` (no punycode to fail on). */
const DNS_NAME = '([A-Za-z0-9]+(-[A-Za-z0-9]+)*\\.)*[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)*';
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const LOOPBACK = `(localhost|127(\\.${OCTET}){3}|\\[::1\\])`;
/**
 * A Web Push endpoint: https (browsers' push services always are), or plain http only to a push
 * service on this machine; printable ASCII after the host. One pattern, so the OpenAPI document
 * states the rule; every value it admits is a URL that parses. Which hosts are push services
 * (user info and addresses refused) is checked when subscribing.
 */
const PUSH_ENDPOINT = new RegExp(
  `^(https://([A-Za-z0-9._~!$&'()*+,;=:%-]*@)?(${DNS_NAME}|${OCTET}(\\.${OCTET}){3})|http://${LOOPBACK})(:${PORT})?(/[!-~]*)?$`,
);

/** URL-safe base64 of exactly `bytes` bytes (65 and 16 leave no choice of length), padded or not. */
const base64url = (bytes: number) =>
  z.string().regex(new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}={0,2}$`), `must be URL-safe base64 of ${bytes} bytes`);

/**
 * A browser's `PushSubscription.toJSON()` (plus an optional label) as registered with
 * `POST /api/v1/push/subscriptions` or tRPC `notifications.subscribePush`.
 */
export const PushSubscriptionInputSchema = z.object({
  endpoint: z.string().max(2048).regex(PUSH_ENDPOINT, 'must be an https URL (or http on loopback)'),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: base64url(65), auth: base64url(16) }),
  label: z.string().min(1).max(100).optional(),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInputSchema>;

/** Filters of the delivery log (`notifications.deliveries`). */
export const DeliveryFilterSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  channel: z.enum(NOTIFY_CHANNELS).optional(),
  topic: z.enum(DELIVERY_TOPICS).optional(),
  before_ms: z.number().int().optional(),
  limit: z.number().int().min(1).max(500).default(100),
});

/** The event fields a notification carries (never the whole payload). */
export interface EventNotice {
  event_id: string;
  type: string;
  severity: Severity;
  title: string;
  summary: string | null;
  hostname: string;
  host_display: string | null;
  occurred_at: string;
  actor_user: string | null;
  ip: string | null;
}

/** Notices name no assignee: the outbox keeps what was sent, and sending does not depend on who handles it. */
export type ProblemNotice = Omit<StreamProblem, 'assignee_id' | 'assignee'> & {
  /** The problem's top addresses, users and hosts when the notice was built (absent in rows queued before they were added). */
  facts?: ProblemFacts;
};

/** One host's line of a daily report. */
export interface ReportHostRow {
  host_id: string;
  hostname: string;
  platform: 'ssh' | 'rdp';
  successful_logins: number;
  failed_logins: number;
  active_bans: number;
  top_failed_ips: string[];
  active_users: string[];
  reported_at: string;
}

/** Aggregated content of one daily report. */
export interface ReportSummary {
  period_from: string;
  period_to: string;
  hosts: ReportHostRow[];
  totals: { hosts: number; ssh_hosts: number; rdp_hosts: number; successful_logins: number; failed_logins: number; active_bans: number };
  top_failed_ips: { ip: string; count: number }[];
}

/** A request that waits for a second person, as its approvers are told of it. */
export type ApprovalNotice = Pick<ApprovalRequestView, 'id' | 'action' | 'summary' | 'hostnames' | 'reason' | 'requested_by' | 'expires_at'>;

/** What is being notified: stored in the outbox and formatted when it is delivered. */
export type NotificationContent =
  | { kind: 'event'; event: EventNotice }
  | { kind: 'problem'; action: 'opened' | 'resolved'; problem: ProblemNotice }
  /** Re-notification of a problem still open (not acknowledged): `step` counts from 1; `final` is the last step. */
  | { kind: 'problem'; action: 'escalated'; problem: ProblemNotice; step: number; final: boolean }
  | { kind: 'report'; report_id: string; day: string; summary: ReportSummary }
  | { kind: 'test'; requested_by: string }
  | { kind: 'login_locked'; username: string; ip: string | null; locked_until: string; attempts: number }
  /** A new approval request, pushed to the users who may decide it. */
  | { kind: 'approval'; approval: ApprovalNotice };

export type NotificationKind = NotificationContent['kind'];
