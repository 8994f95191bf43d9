import { z } from 'zod';
import { ProblemActionBodySchema, ProblemAssignBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import { ByIdInput as ById, defineOperation } from '../http/index.js';
import type { ProblemsService } from './problems.service.js';

const Action = ProblemActionBodySchema.extend(ById.shape);
const Problem = z.looseObject({ id: z.string(), status: z.string() });
const STATE_CONFLICT = 'Not allowed in the current state';

/**
 * Problems (any signed-in user): list, one with its timeline, acknowledge, resolve, reopen and
 * assign — at both `/problems/...` and `/api/v1/problems/...` — and who a problem can be assigned to.
 */
export function problemsOperations(problems: ProblemsService) {
  /** The same transition at `/api/v1/problems/{id}/<verb>` and its `/problems/...` alias. */
  const transition = <const V extends 'acknowledge' | 'resolve' | 'reopen'>(verb: V, summary: string, conflict: string) =>
    defineOperation({
      id: `problems.${verb}`,
      summary,
      role: 'operator',
      method: 'POST',
      path: `/api/v1/problems/{id}/${verb}`,
      aliases: [`/problems/{id}/${verb}`],
      input: Action,
      output: Problem,
      errors: { '409': conflict },
      handler: (input, caller) => problems[verb](input.id, input.comment, caller),
    });
  return [
    defineOperation({
      id: 'problems.list',
      summary: 'List problems',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/problems',
      aliases: ['/problems'],
      input: ProblemListQuerySchema,
      output: z.looseObject({ items: z.array(Problem), next_cursor: z.string().nullable() }),
      handler: (input, caller) => problems.list(input, caller.user.id),
    }),
    defineOperation({
      id: 'problems.byId',
      summary: 'A problem with its timeline',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/problems/{id}',
      aliases: ['/problems/{id}'],
      input: ById,
      output: Problem.extend({ evidence: z.looseObject({ kind: z.string() }).nullable(), timeline: z.array(z.looseObject({})) }),
      handler: (input) => problems.byId(input.id),
    }),
    transition('acknowledge', 'Acknowledge a problem', STATE_CONFLICT),
    transition('resolve', 'Resolve a problem', STATE_CONFLICT),
    transition('reopen', 'Reopen a resolved problem', 'Not resolved'),
    defineOperation({
      id: 'problems.assign',
      summary: 'Assign a problem to a console user, or unassign it (null)',
      role: 'operator',
      method: 'POST',
      path: '/api/v1/problems/{id}/assign',
      aliases: ['/problems/{id}/assign'],
      input: ProblemAssignBodySchema.extend(ById.shape),
      output: Problem,
      errors: { '409': 'The assignee changed since the caller saw it', '422': 'Not an active console user' },
      handler: (input, caller) => problems.assign(input.id, input.assignee_id, input.expected_assignee_id, caller),
    }),
    defineOperation({
      id: 'problems.assignees',
      summary: 'Console users a problem can be assigned to',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/problem-assignees',
      envelope: 'items',
      output: z.array(z.looseObject({ id: z.string(), username: z.string() })),
      handler: () => problems.assignees(),
    }),
  ];
}
