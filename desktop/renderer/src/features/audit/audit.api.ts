import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type AuditRow = RouterOutputs['audit']['list'][number];
export type AuditQuery = RouterInputs['audit']['list'];

export const auditApi = {
  list: (q: AuditQuery) => call(() => trpc.audit.list.query(q)),
  count: (q: AuditQuery) => call(() => trpc.audit.count.query(q)),
};
