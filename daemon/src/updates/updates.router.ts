import { adminProcedure, operatorProcedure, router } from '../http/trpc.js';
import type { AgentVersionsService } from './agent-versions.service.js';
import { GitTestInput } from './updates.routes.js';

/** tRPC `agents.*`: latest versions (any user), check now and the git test (admin). */
export function updatesRouter(versions: AgentVersionsService) {
  return router({
    versions: operatorProcedure.query(() => versions.list()),
    refreshVersions: adminProcedure.mutation(({ ctx }) => versions.refreshAll(ctx)),
    testGitRepo: adminProcedure.input(GitTestInput).mutation(({ input, ctx }) => versions.test(input.product, ctx)),
  });
}
