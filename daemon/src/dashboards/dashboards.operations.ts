import { z } from 'zod';
import { DashboardRangeQuerySchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { DashboardsService } from './dashboards.service.js';

/**
 * Dashboards (any signed-in user): the summary of a range (default the last 24 h) and the events-per-hour
 * chart, of the whole fleet or of a host group; a caller limited to host groups gets their hosts' figures.
 */
export function dashboardsOperations(dashboards: DashboardsService) {
  return [
    defineOperation({
      id: 'dashboards.summary',
      summary: 'Dashboard summary of a time range (default the last 24 h)',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/dashboards/summary',
      scope: 'filtered',
      input: DashboardRangeQuerySchema,
      output: z.looseObject({ range: z.looseObject({}) }),
      errors: { '404': 'No such host group' },
      handler: (input, caller) => dashboards.summary(input, caller.scope),
    }),
    defineOperation({
      id: 'dashboards.eventsPerHour',
      summary: 'Events per hour of a time range, for the chart',
      role: 'operator',
      method: 'GET',
      scope: 'filtered',
      input: DashboardRangeQuerySchema,
      output: z.array(z.looseObject({})),
      handler: (input, caller) => dashboards.eventsPerHour(input, caller.scope),
    }),
  ];
}
