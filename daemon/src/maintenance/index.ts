/**
 * Maintenance windows (silences): the service, the pure timing/matching rules the notifier and
 * the silence scan use, and the operations.
 */
export { MaintenanceService } from './maintenance.service.js';
export { namesGroups, suppressingWindow, type InForceWindow } from './maintenance.rules.js';
export { maintenanceOperations } from './maintenance.operations.js';
