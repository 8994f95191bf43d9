import { z } from 'zod';

/** Notification channels (policy `enabled_channels`, delivery log `channel`). */
export const NOTIFY_CHANNELS = ['telegram', 'webhook', 'smtp', 'push'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** Delivery states of a notification in the delivery log. */
export const DELIVERY_STATUSES = ['pending', 'sending', 'sent', 'failed', 'suppressed'] as const;

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function isPushEndpoint(value: string): boolean {
  try {
    const u = new URL(value);
    // Browsers' push services are always https; plain http only for a push service on this machine.
    return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOST.test(u.hostname));
  } catch {
    return false;
  }
}

const base64url = (bytes: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be URL-safe base64')
    .refine((v) => Math.floor((v.replace(/=+$/, '').length * 3) / 4) === bytes, `must encode ${bytes} bytes`);

/**
 * A browser's `PushSubscription.toJSON()` (plus an optional label) as registered with
 * `POST /api/v1/push/subscriptions` or tRPC `notifications.subscribePush`.
 */
export const PushSubscriptionInputSchema = z.object({
  endpoint: z.string().max(2048).refine(isPushEndpoint, 'must be an https URL (or http on loopback)'),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({ p256dh: base64url(65), auth: base64url(16) }),
  label: z.string().min(1).max(100).optional(),
});
export type PushSubscriptionInput = z.infer<typeof PushSubscriptionInputSchema>;

/** Filters of the delivery log (`notifications.deliveries`). */
export const DeliveryFilterSchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  channel: z.enum(NOTIFY_CHANNELS).optional(),
  topic: z.enum(['event', 'problem.opened', 'problem.resolved', 'problem.escalated', 'report', 'test', 'login_locked']).optional(),
  before_ms: z.number().int().optional(),
  limit: z.number().int().min(1).max(500).default(100),
});
