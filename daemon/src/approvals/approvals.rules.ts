import {
  APPROVAL_KIND_ACTION,
  APPROVAL_ROLE,
  type ApprovalAction,
  type ApprovalActionInput,
  type ApprovalRequestView,
  type SessionUser,
  type SettingsValue,
  type ValidationIssue,
} from '../../../shared/src/index.js';
import type { ApprovalRecord } from '../store/index.js';

/** Whether `user` may do (so request or approve) `action`. */
export function mayAct(user: Pick<SessionUser, 'role'>, action: ApprovalAction): boolean {
  const role = APPROVAL_ROLE[action];
  return role === 'any' || user.role === role;
}

/**
 * Whether `user` may decide the request: an active user other than the requester whose role
 * allows the action. The requester never approves their own request.
 */
export function mayDecide(user: Pick<SessionUser, 'id' | 'role'>, request: Pick<ApprovalRecord, 'action' | 'requested_by_id'>): boolean {
  return user.id !== request.requested_by_id && mayAct(user, request.action);
}

/** The policy's per-group entries naming a group that does not exist (checked when the settings are saved). */
export function unknownPolicyGroups(value: SettingsValue<'approvals'>, groupIds: ReadonlySet<string>): ValidationIssue[] {
  return value.by_group.flatMap((entry, i) => (groupIds.has(entry.group) ? [] : [{ path: `by_group.${i}.group`, message: 'is not a host group' }]));
}

/** Whether a request is within a host scope (null: every host): all its hosts are, and it has some. */
export function withinScope(request: Pick<ApprovalRecord, 'host_ids'>, within: ReadonlySet<string> | null | undefined): boolean {
  return !within || (request.host_ids.length > 0 && request.host_ids.every((id) => within.has(id)));
}

export function actionOf(request: ApprovalActionInput): ApprovalAction {
  return APPROVAL_KIND_ACTION[request.kind];
}

/** What a request will run, in words, given the names of its hosts and (a ban) the address. */
export function approvalSummary(request: ApprovalActionInput, hostnames: readonly string[], subject?: string): string {
  const on = hostnames.join(', ');
  switch (request.kind) {
    case 'host_logoff':
      return `Log off session ${request.session_id} on ${on}`;
    case 'event_logoff':
      return request.session_id === undefined ? `Log off the session of event ${request.event_id} on ${on}` : `Log off session ${request.session_id} on ${on} (event ${request.event_id})`;
    case 'host_update':
      return `Update the agent on ${on}`;
    case 'rollout_start':
      return `Start a rollout of ${request.product} ${request.target_version ?? '(latest)'} on ${hostnames.length} hosts${hostnames.length > 0 ? ` (${hostnames.slice(0, 10).join(', ')}${hostnames.length > 10 ? ', …' : ''})` : ''}`;
    case 'host_delete':
      return `Delete host ${on} with its events and problems`;
    case 'ban_create':
    case 'ban_apply':
      return `Ban ${subject ?? 'the address'} on ${request.kind === 'ban_create' && request.target.kind === 'hosts' ? '' : 'all Linux hosts: '}${on || 'no host yet'}`;
  }
}

export function approvalView(r: ApprovalRecord): ApprovalRequestView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: r.id,
    action: r.action,
    request: r.request,
    summary: r.summary,
    host_ids: r.host_ids,
    hostnames: r.hostnames,
    reason: r.reason,
    requested_by: r.requested_by,
    requested_by_id: r.requested_by_id,
    requested_at: iso(r.requested_ms),
    expires_at: iso(r.expires_ms),
    state: r.state,
    decided_by: r.decided_by,
    decided_at: r.decided_ms === null ? null : iso(r.decided_ms),
    note: r.note,
    result: r.result,
  };
}
