/** Dashboard summary from rollups and small indexed queries. */
export { DashboardsService } from './dashboards.service.js';
