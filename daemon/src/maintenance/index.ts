/**
 * Maintenance windows (silences): the service, the pure timing/matching rules the notifier and
 * the silence scan use, and the REST routes and tRPC router.
 */
export { MaintenanceService } from './maintenance.service.js';
export { suppressingWindow } from './maintenance.rules.js';
export { createMaintenanceRoutes } from './maintenance.routes.js';
export { maintenanceRouter } from './maintenance.router.js';
