/**
 * Two-person approval: the policy the gated actions check (`ApprovalPolicy`), the requests and
 * their decisions (`ApprovalsService`), and the console operations.
 */
export { ApprovalPolicy, ApprovalsService, approvalAudit, type Approved } from './approvals.service.js';
export { approvalsOperations } from './approvals.operations.js';
export { mayDecide, unknownPolicyGroups } from './approvals.rules.js';
