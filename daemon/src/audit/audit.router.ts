import { AuditQuerySchema } from '../../../shared/src/index.js';
import type { AuditService } from './audit.service.js';
import { adminProcedure, router } from '../http/index.js';

/** tRPC `audit.list` (admin), newest first; `audit.count`: how many match the same filters. */
export function auditRouter(audit: AuditService) {
  return router({
    list: adminProcedure.input(AuditQuerySchema).query(({ input }) => audit.list(input)),
    count: adminProcedure.input(AuditQuerySchema).query(({ input }) => audit.count(input)),
  });
}
