/** Dashboard summary from rollups and small indexed queries. */
export { DashboardsService } from './dashboards.service.js';
export { createDashboardsRoutes } from './dashboards.routes.js';
export { dashboardsRouter } from './dashboards.router.js';
