import { z } from 'zod';
import { HostListQuerySchema, HostPinSchema } from '../../../shared/src/index.js';
import { adminProcedure, operatorProcedure, router } from '../http/index.js';
import type { HostsService } from './hosts.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(128) });

/** tRPC `hosts.*`: list (`q`, `outdated`, `sort`, `dir`), byId with inventory, delete, pinAddress and unpinAddress (admin). */
export function hostsRouter(hosts: HostsService) {
  return router({
    list: operatorProcedure
      .input(HostListQuerySchema.optional())
      .query(async ({ input }) => ({
        items: await hosts.list(input?.q, input?.outdated === undefined ? undefined : input.outdated === 'true', input?.sort, input?.dir),
      })),
    byId: operatorProcedure.input(ById).query(({ input }) => hosts.byId(input.id)),
    pinAddress: adminProcedure.input(ById.extend({ pin: HostPinSchema })).mutation(({ input, ctx }) => hosts.pin(input.id, input.pin, ctx)),
    unpinAddress: adminProcedure.input(ById).mutation(({ input, ctx }) => hosts.unpin(input.id, ctx)),
    delete: adminProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await hosts.remove(input.id, ctx);
      return { deleted: true };
    }),
  });
}
