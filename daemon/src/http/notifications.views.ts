import type { DailyReportListItem, OutboxRecord, PushSubscriptionRecord } from '../store/index.js';

/** A delivery log entry as the API shows it (the lease is internal). */
export function deliveryView(r: OutboxRecord) {
  const { lease_until_ms: _lease, ...rest } = r;
  return rest;
}

/** A push subscription without its `auth` secret and key. */
export function subscriptionView(s: PushSubscriptionRecord) {
  return { id: s.id, endpoint: s.endpoint, label: s.label, user_id: s.user_id, created_ms: s.created_ms };
}

/** A report's metadata and summary, with where to open its HTML. */
export function reportView(r: DailyReportListItem) {
  const { id, day, trigger, requested_by, created_ms, period_from_ms, period_to_ms, summary } = r;
  return { id, day, trigger, requested_by, created_ms, period_from_ms, period_to_ms, summary, html_path: `/api/v1/reports/${id}/html` };
}
