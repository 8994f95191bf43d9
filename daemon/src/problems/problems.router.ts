import { z } from 'zod';
import { ProblemActionBodySchema, ProblemAssignBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { ProblemsService } from './problems.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(128) });
const Action = ProblemActionBodySchema.extend({ id: ById.shape.id });

/** tRPC `problems.*`: list, byId with timeline, acknowledge, resolve, reopen, assign, assignees (both roles). */
export function problemsRouter(problems: ProblemsService) {
  return router({
    list: operatorProcedure.input(ProblemListQuerySchema).query(({ input, ctx }) => problems.list(input, ctx.user.id)),
    byId: operatorProcedure.input(ById).query(({ input }) => problems.byId(input.id)),
    acknowledge: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.acknowledge(input.id, input.comment, ctx)),
    resolve: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.resolve(input.id, input.comment, ctx)),
    reopen: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.reopen(input.id, input.comment, ctx)),
    assign: operatorProcedure
      .input(ProblemAssignBodySchema.extend({ id: ById.shape.id }))
      .mutation(({ input, ctx }) => problems.assign(input.id, input.assignee_id, input.expected_assignee_id, ctx)),
    assignees: operatorProcedure.query(() => problems.assignees()),
  });
}
