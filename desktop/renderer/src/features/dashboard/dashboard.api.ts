import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type DashboardSummary = RouterOutputs['dashboards']['summary'];
export type HourlyEvents = RouterOutputs['dashboards']['eventsPerHour'];

export type DashboardRangeInput = { from?: string; to?: string; group?: string };

export const dashboardApi = {
  summary: (range: DashboardRangeInput) => call(() => trpc.dashboards.summary.query(range)),
  eventsPerHour: (range: DashboardRangeInput) => call(() => trpc.dashboards.eventsPerHour.query(range)),
};
