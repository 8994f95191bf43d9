import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type ProblemsPage = RouterOutputs['problems']['list'];
export type ProblemRow = ProblemsPage['items'][number];
export type ProblemDetail = RouterOutputs['problems']['byId'];
export type ProblemsQuery = RouterInputs['problems']['list'];
export type ProblemAction = 'acknowledge' | 'resolve' | 'reopen';
export type Assignee = RouterOutputs['problems']['assignees'][number];

const ACTIONS = { acknowledge: trpc.problems.acknowledge, resolve: trpc.problems.resolve, reopen: trpc.problems.reopen };

export const problemsApi = {
  list: (query: ProblemsQuery) => call(() => trpc.problems.list.query(query)),
  byId: (id: string) => call(() => trpc.problems.byId.query({ id })),
  act: (action: ProblemAction, id: string, comment: string | undefined) => call(() => ACTIONS[action].mutate({ id, comment })),
  /** `expected`: the assignee the operator saw, so a concurrent change is refused (409) rather than overwritten. */
  assign: (id: string, assigneeId: string | null, expected: string | null) =>
    call(() => trpc.problems.assign.mutate({ id, assignee_id: assigneeId, expected_assignee_id: expected })),
  assignees: () => call(() => trpc.problems.assignees.query()),
};
