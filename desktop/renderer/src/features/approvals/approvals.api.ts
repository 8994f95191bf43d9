import type { ApprovalActionInput, ApprovalListView, ApprovalRequestView, ApprovalState } from '../../../../../shared/src/approvals.schema';
import { call, trpc } from '../../api/trpc';

export type ApprovalRow = ApprovalRequestView;

export const approvalsApi = {
  list: (state?: ApprovalState): Promise<ApprovalListView> => call(() => trpc.approvals.list.query({ limit: 200, ...(state ? { state } : {}) })),
  byId: (id: string): Promise<ApprovalRequestView> => call(() => trpc.approvals.byId.query({ id })),
  request: (request: ApprovalActionInput, reason: string) => call(() => trpc.approvals.request.mutate({ request, reason })),
  approve: (id: string, note?: string) => call(() => trpc.approvals.approve.mutate({ id, ...(note ? { note } : {}) })),
  deny: (id: string, note?: string) => call(() => trpc.approvals.deny.mutate({ id, ...(note ? { note } : {}) })),
  cancel: (id: string) => call(() => trpc.approvals.cancel.mutate({ id })),
};
