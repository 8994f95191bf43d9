import { z } from 'zod';
import { ProblemActionBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { ProblemsService } from './problems.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(128) });
const Action = ProblemActionBodySchema.extend({ id: ById.shape.id });

/** tRPC `problems.*`: list, byId with timeline, acknowledge, resolve (both roles). */
export function problemsRouter(problems: ProblemsService) {
  return router({
    list: operatorProcedure.input(ProblemListQuerySchema).query(({ input }) => problems.list(input)),
    byId: operatorProcedure.input(ById).query(({ input }) => problems.byId(input.id)),
    acknowledge: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.acknowledge(input.id, input.comment, ctx)),
    resolve: operatorProcedure.input(Action).mutation(({ input, ctx }) => problems.resolve(input.id, input.comment, ctx)),
  });
}
