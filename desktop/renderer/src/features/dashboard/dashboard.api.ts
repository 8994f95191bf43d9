import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type DashboardSummary = RouterOutputs['dashboards']['summary'];
export type HourlyEvents = RouterOutputs['dashboards']['eventsPerHour'];

export const dashboardApi = {
  summary: () => call(() => trpc.dashboards.summary.query()),
  eventsPerHour: () => call(() => trpc.dashboards.eventsPerHour.query()),
};
