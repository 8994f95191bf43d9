import type { ProblemStatus } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';

export type { ProblemStatus };
export type ProblemAction = 'acknowledge' | 'resolve' | 'reopen';

const ALLOWED: Record<ProblemAction, { from: readonly ProblemStatus[]; to: ProblemStatus }> = {
  acknowledge: { from: ['open'], to: 'acknowledged' },
  resolve: { from: ['open', 'acknowledged'], to: 'resolved' },
  // Only a resolved problem reopens; it starts over as open (its acknowledgement is cleared too).
  reopen: { from: ['resolved'], to: 'open' },
};

/** The status an action leads to, or null when the action is not allowed from `status`. */
export function nextStatus(status: ProblemStatus, action: ProblemAction): ProblemStatus | null {
  const rule = ALLOWED[action];
  return rule.from.includes(status) ? rule.to : null;
}

/** Statuses an action may start from (the store's compare-and-set condition). */
export function allowedFrom(action: ProblemAction): readonly ProblemStatus[] {
  return ALLOWED[action].from;
}

export function invalidTransition(status: ProblemStatus, action: ProblemAction): AppError {
  return new AppError('problem/invalid_transition', `Cannot ${action} a problem that is ${status}`, {
    details: { status, action },
  });
}
