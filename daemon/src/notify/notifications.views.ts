import type { OutboxRecord, PushSubscriptionRecord } from '../store/index.js';

/** A delivery log entry as the API shows it (the lease is internal). */
export function deliveryView(r: OutboxRecord) {
  const { lease_until_ms: _lease, ...rest } = r;
  return rest;
}

/** A push subscription without its `auth` secret and key. */
export function subscriptionView(s: PushSubscriptionRecord) {
  return { id: s.id, endpoint: s.endpoint, label: s.label, user_id: s.user_id, created_ms: s.created_ms };
}
