import { operatorProcedure, router } from '../http/index.js';
import type { DashboardsService } from './dashboards.service.js';

/** tRPC `dashboards.*`: summary, eventsPerHour (the console's 24 h chart). */
export function dashboardsRouter(dashboards: DashboardsService) {
  return router({
    summary: operatorProcedure.query(() => dashboards.summary()),
    eventsPerHour: operatorProcedure.query(() => dashboards.eventsPerHour()),
  });
}
