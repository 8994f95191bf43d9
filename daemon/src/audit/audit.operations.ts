import { z } from 'zod';
import { AuditQuerySchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { AuditService } from './audit.service.js';

/** The audit log (admin): entries newest first, filtered by `action` (or `prefix.`), `actor`, `target`, `outcome`, `from`, `before`, `limit`; how many match. */
export function auditOperations(audit: AuditService) {
  return [
    defineOperation({
      id: 'audit.list',
      summary: 'The audit log, newest first',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/audit',
      envelope: 'entries',
      input: AuditQuerySchema,
      output: z.array(z.looseObject({ id: z.string(), at: z.string(), action: z.string() })),
      handler: (input) => audit.list(input),
    }),
    defineOperation({
      id: 'audit.count',
      summary: 'How many audit entries match the filters',
      role: 'admin',
      method: 'GET',
      input: AuditQuerySchema,
      output: z.number().int().min(0),
      handler: (input) => audit.count(input),
    }),
  ];
}
