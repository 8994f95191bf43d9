import { z } from 'zod';
import { BanCreateFieldsSchema, oneBanSource } from './bans.schema.js';
import type { Role } from './roles.js';
import { RolloutStartSchema } from './rollouts.schema.js';
import { trimmedNote, trimmedText } from './trimmed-text.js';

/*
 * Two-person approval: actions an admin policy puts under a second person's approval become a
 * request that another user with the right to act approves or denies.
 */

/** The actions a policy may put under approval. */
export const APPROVAL_ACTIONS = ['session_logoff', 'agent_update', 'rollout_start', 'host_delete', 'fleet_ban'] as const;
export type ApprovalAction = (typeof APPROVAL_ACTIONS)[number];

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

const Id = z.string().min(1).max(128);
const ApprovalActionList = z.array(z.enum(APPROVAL_ACTIONS)).max(APPROVAL_ACTIONS.length);

/** Actions that need a second person when they touch a host of one group (in addition to `require`). */
export const ApprovalGroupPolicySchema = z.strictObject({
  group: Id,
  actions: ApprovalActionList.min(1),
});
export type ApprovalGroupPolicy = z.output<typeof ApprovalGroupPolicySchema>;

/** At most this many per-group entries in the approval policy. */
export const APPROVAL_GROUP_POLICIES_MAX = 100;

export const ApprovalsSettingsSchema = z.strictObject({
  /** Actions that need a second person everywhere; none by default. */
  require: ApprovalActionList.default([]),
  /** Per host group, further actions that need a second person when they touch a member of the group. */
  by_group: z
    .array(ApprovalGroupPolicySchema)
    .max(APPROVAL_GROUP_POLICIES_MAX)
    .refine((list) => new Set(list.map((e) => e.group)).size === list.length, { message: 'name each group once' })
    .default([]),
  /** A request not decided within this many minutes expires. */
  expiry_minutes: z.number().int().min(1).max(1440).default(30),
});

const SessionId = z.coerce.number().int().min(1).max(65_535);

/**
 * What a request asks to run: the input of the operation the policy held back, as its 409
 * `approval/required` answer states it in `details.request`.
 */
export const ApprovalActionInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('host_logoff'), host_id: Id, session_id: SessionId }),
  z.strictObject({ kind: z.literal('event_logoff'), event_id: Id, session_id: SessionId.optional() }),
  z.strictObject({ kind: z.literal('host_update'), host_id: Id }),
  RolloutStartSchema.extend({ kind: z.literal('rollout_start') }),
  z.strictObject({ kind: z.literal('host_delete'), host_id: Id }),
  BanCreateFieldsSchema.extend({ kind: z.literal('ban_create') }).refine(oneBanSource, { message: 'give exactly one of address, event_id and problem_id' }),
  z.strictObject({ kind: z.literal('ban_apply'), id: Id }),
]);
export type ApprovalActionInput = z.output<typeof ApprovalActionInputSchema>;

/** The role an action needs, to request it and to approve it (the role of the operation it runs); the daemon checks it, the console offers only what it allows. */
export const APPROVAL_ROLE: Record<ApprovalAction, Role | 'any'> = {
  session_logoff: 'any',
  agent_update: 'admin',
  rollout_start: 'admin',
  host_delete: 'admin',
  fleet_ban: 'admin',
};

/** The action each request kind runs. */
export const APPROVAL_KIND_ACTION: Record<ApprovalActionInput['kind'], ApprovalAction> = {
  host_logoff: 'session_logoff',
  event_logoff: 'session_logoff',
  host_update: 'agent_update',
  rollout_start: 'rollout_start',
  host_delete: 'host_delete',
  ban_create: 'fleet_ban',
  ban_apply: 'fleet_ban',
};

export const ApprovalRequestInputSchema = z.strictObject({
  request: ApprovalActionInputSchema,
  /** Why: required, shown to the approvers and kept in the audit log. */
  reason: trimmedText(500),
});

export const ApprovalDecisionInputSchema = z.strictObject({
  id: Id,
  /** An optional word from the approver or denier. */
  note: trimmedNote(500).optional(),
});

export const ApprovalListQuerySchema = z.strictObject({
  state: z.enum(APPROVAL_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export interface ApprovalRequestView {
  id: string;
  action: ApprovalAction;
  request: ApprovalActionInput;
  /** What will run, in words: "log off session 2 on RDS01". */
  summary: string;
  host_ids: string[];
  hostnames: string[];
  reason: string;
  requested_by: string;
  requested_by_id: string;
  requested_at: string;
  expires_at: string;
  state: ApprovalState;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
  /** After approval: whether the action ran, and what it answered or why it failed. */
  result: { ok: boolean; detail: string } | null;
}

export interface ApprovalListView {
  items: ApprovalRequestView[];
  /** Pending requests the caller may decide (not their own, and their role allows the action). */
  pending_for_me: number;
}
