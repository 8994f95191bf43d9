import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type ProblemsPage = RouterOutputs['problems']['list'];
export type ProblemRow = ProblemsPage['items'][number];
export type ProblemDetail = RouterOutputs['problems']['byId'];
export type ProblemsQuery = RouterInputs['problems']['list'];
export type ProblemAction = 'acknowledge' | 'resolve';

export const problemsApi = {
  list: (query: ProblemsQuery) => call(() => trpc.problems.list.query(query)),
  byId: (id: string) => call(() => trpc.problems.byId.query({ id })),
  act: (action: ProblemAction, id: string, comment: string | undefined) =>
    call(() => (action === 'acknowledge' ? trpc.problems.acknowledge : trpc.problems.resolve).mutate({ id, comment })),
};
