import { z } from 'zod';
import { adminProcedure, operatorProcedure, router } from '../http/index.js';
import type { AgentUpdatesService } from './agent-updates.service.js';
import { AgentConfigInput, AgentUpdatesQuery, ProductInput } from './agent-updates.routes.js';
import type { AgentVersionsService } from './agent-versions.service.js';
import { GitTestInput } from './updates.routes.js';

const HostInput = z.strictObject({ host_id: z.string().min(1).max(64) });

/**
 * tRPC `agents.*`: latest versions and update jobs (any user); check now, the git test, starting
 * updates and a host's desired configuration (admin).
 */
export function updatesRouter(versions: AgentVersionsService, updates: AgentUpdatesService) {
  return router({
    versions: operatorProcedure.query(() => versions.list()),
    refreshVersions: adminProcedure.mutation(({ ctx }) => versions.refreshAll(ctx)),
    testGitRepo: adminProcedure.input(GitTestInput).mutation(({ input, ctx }) => versions.test(input.product, ctx)),
    updates: operatorProcedure.input(AgentUpdatesQuery.optional()).query(({ input }) => updates.list(AgentUpdatesQuery.parse(input ?? {}))),
    updateHost: adminProcedure.input(HostInput).mutation(({ input, ctx }) => updates.startForHost(input.host_id, ctx)),
    updateProduct: adminProcedure.input(ProductInput).mutation(({ input, ctx }) => updates.startForProduct(input.product, ctx)),
    pushUpdate: adminProcedure.input(z.strictObject({ job_id: z.string().min(1).max(64) })).mutation(({ input, ctx }) => updates.pushNow(input.job_id, ctx)),
    hostConfig: operatorProcedure.input(HostInput).query(({ input }) => updates.hostConfig(input.host_id)),
    setHostConfig: adminProcedure
      .input(HostInput.extend({ config: AgentConfigInput }))
      .mutation(({ input, ctx }) => updates.setHostConfig(input.host_id, input.config, ctx)),
  });
}
