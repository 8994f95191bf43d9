import { z } from 'zod';
import { ApprovalDecisionInputSchema, ApprovalListQuerySchema, ApprovalRequestInputSchema } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { ApprovalsService } from './approvals.service.js';

const Request = z.looseObject({ id: z.string(), state: z.string(), summary: z.string() });
const DECIDE_ERRORS = {
  '403': 'Your own request, or your role may not do the action',
  '404': 'No such request',
  '409': 'The request is no longer pending, or it expired',
} as const;

/**
 * Two-person approval: requests for actions the policy holds back, and their decisions. Any
 * signed-in user calls these; the service checks that the caller's role allows the action and
 * that nobody decides their own request.
 */
export function approvalsOperations(approvals: ApprovalsService) {
  /** A request of a host outside a limited caller's groups is answered as if it did not exist. */
  const ON_REQUEST = {
    host: (input: { id: string }) => approvals.hostsOf(input.id),
    notFound: (input: { id: string }) => new AppError('approval/not_found', 'No such approval request', { details: { id: input.id } }),
  };
  return [
    defineOperation({
      id: 'approvals.list',
      summary: 'Approval requests, newest first, and how many the caller may decide',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/approvals',
      input: ApprovalListQuerySchema,
      scope: 'filtered',
      output: z.looseObject({ items: z.array(Request), pending_for_me: z.number() }),
      handler: (input, caller) => approvals.list(input, caller.user, caller.scope),
    }),
    defineOperation({
      id: 'approvals.byId',
      summary: 'One approval request',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/approvals/{id}',
      input: ByIdInput,
      scope: ON_REQUEST,
      output: Request,
      errors: { '404': 'No such request' },
      handler: (input) => approvals.byId(input.id),
    }),
    defineOperation({
      id: 'approvals.request',
      summary: 'Request an action the approval policy holds back, with a reason',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/approvals',
      status: 201,
      input: ApprovalRequestInputSchema,
      scope: {
        host: (input) => approvals.hostsOfRequest(input.request),
        notFound: () => new AppError('host/not_found', 'No such host'),
      },
      output: Request,
      errors: { '403': 'Your role may not do the action', '404': 'The host, event or host group does not exist', '409': 'The action does not need approval', '422': 'A rollout’s target version has no release tag' },
      handler: (input, caller) => approvals.request(input, caller),
    }),
    defineOperation({
      id: 'approvals.approve',
      summary: 'Approve a request (not your own): the action runs as your decision',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/approvals/{id}/approve',
      input: ApprovalDecisionInputSchema,
      scope: ON_REQUEST,
      output: Request,
      errors: DECIDE_ERRORS,
      handler: (input, caller) => approvals.approve(input.id, input.note, caller),
    }),
    defineOperation({
      id: 'approvals.deny',
      summary: 'Deny a request (not your own)',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/approvals/{id}/deny',
      input: ApprovalDecisionInputSchema,
      scope: ON_REQUEST,
      output: Request,
      errors: DECIDE_ERRORS,
      handler: (input, caller) => approvals.deny(input.id, input.note, caller),
    }),
    defineOperation({
      id: 'approvals.cancel',
      summary: 'Withdraw a pending request (the requester or an admin)',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/approvals/{id}/cancel',
      input: ByIdInput,
      scope: ON_REQUEST,
      output: Request,
      errors: { '403': 'Not your request', '404': 'No such request', '409': 'The request is no longer pending' },
      handler: (input, caller) => approvals.cancel(input.id, caller),
    }),
  ];
}
