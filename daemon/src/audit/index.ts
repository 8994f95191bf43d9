/** The audit log: `AuditService.record` for every feature that changes something, `list` for admins. */
export { AuditService, type Actor, type AuditInput } from './audit.service.js';
export { auditOperations } from './audit.operations.js';
