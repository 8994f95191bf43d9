/** Dashboard summary from rollups and small indexed queries. */
export { DashboardsService } from './dashboards.service.js';
export { dashboardsOperations } from './dashboards.operations.js';
