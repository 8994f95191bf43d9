import { DashboardRangeQuerySchema } from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { DashboardsService } from './dashboards.service.js';

/** tRPC `dashboards.*`: summary, eventsPerHour (the console's chart), both over an optional range. */
export function dashboardsRouter(dashboards: DashboardsService) {
  return router({
    summary: operatorProcedure.input(DashboardRangeQuerySchema.optional()).query(({ input }) => dashboards.summary(input)),
    eventsPerHour: operatorProcedure.input(DashboardRangeQuerySchema.optional()).query(({ input }) => dashboards.eventsPerHour(input)),
  });
}
