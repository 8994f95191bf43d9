import type { ApprovalAction, ApprovalActionInput, ApprovalState } from '../../../shared/src/index.js';

/** A two-person approval request as stored. */
export interface ApprovalRecord {
  id: string;
  action: ApprovalAction;
  request: ApprovalActionInput;
  summary: string;
  host_ids: string[];
  hostnames: string[];
  reason: string;
  requested_by_id: string;
  requested_by: string;
  requested_ms: number;
  expires_ms: number;
  state: ApprovalState;
  decided_by_id: string | null;
  decided_by: string | null;
  decided_ms: number | null;
  note: string | null;
  result: { ok: boolean; detail: string } | null;
}

/** How a pending request was decided: by whom, when, and the state it moves to. */
export interface ApprovalDecision {
  state: Exclude<ApprovalState, 'pending'>;
  decided_by_id: string | null;
  decided_by: string | null;
  decided_ms: number;
  note: string | null;
}

/**
 * Approval requests. A decision moves a request out of `pending` at most once, atomically
 * (several daemons, two approvers pressing at once: one wins).
 */
export interface ApprovalsRepo {
  insert(record: ApprovalRecord): Promise<void>;
  byId(id: string): Promise<ApprovalRecord | null>;
  /** Newest first. */
  list(q: { state?: ApprovalState; limit: number }): Promise<ApprovalRecord[]>;
  /** Moves a pending request to the decision's state; false when it was no longer pending. */
  decide(id: string, decision: ApprovalDecision): Promise<boolean>;
  /** Records what running an approved request did. */
  setResult(id: string, result: { ok: boolean; detail: string }): Promise<void>;
  /** Pending requests whose expiry is at or before `nowMs`. */
  dueToExpire(nowMs: number, limit: number): Promise<ApprovalRecord[]>;
}
