/** The audit log: `AuditService.record` for every feature that changes something, `list` for admins. */
export { AuditService, type Actor, type AuditInput } from './audit.service.js';
export { createAuditRoutes } from './audit.routes.js';
export { auditRouter } from './audit.router.js';
