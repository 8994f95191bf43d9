import type { DailyReportListItem } from '../store/index.js';

/** A report's metadata and summary, with where to open its HTML. */
export function reportView(r: DailyReportListItem) {
  const { id, day, trigger, requested_by, created_ms, period_from_ms, period_to_ms, summary, group_id, group_name } = r;
  return { id, day, trigger, requested_by, created_ms, period_from_ms, period_to_ms, summary, group_id, group_name, html_path: `/api/v1/reports/${id}/html` };
}
