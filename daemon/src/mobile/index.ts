/**
 * Mobile clients: enrollment codes, devices, rotating refresh tokens (reuse revokes the device),
 * device-bound access tokens, and the operations of the area.
 */
export { MobileService, CODE_HISTORY_MS, DEFAULT_MOBILE_POLICY, type MobilePolicy, type PushRegistry } from './mobile.service.js';
export { mobileOperations } from './mobile.operations.js';
export { createMobileRoutes } from './mobile.routes.js';
