import { z } from 'zod';
import { EnrollmentCodeCreateSchema } from '../../../shared/src/index.js';
import { adminProcedure, operatorProcedure, router } from '../http/index.js';
import type { MobileService } from './mobile.service.js';

const ById = z.strictObject({ id: z.string().min(1).max(64) });

/**
 * tRPC `mobile.*` for the console: enrollment codes (admin), the device list (admin: all; a user:
 * their own), revoke and delete (admin). Devices themselves use the REST routes.
 */
export function mobileRouter(mobile: MobileService) {
  return router({
    issueCode: adminProcedure.input(EnrollmentCodeCreateSchema).mutation(({ input, ctx }) => mobile.issueCode(input, ctx)),
    codes: adminProcedure.query(() => mobile.listCodes()),
    revokeCode: adminProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await mobile.revokeCode(input.id, ctx);
      return { revoked: true };
    }),
    devices: operatorProcedure.query(({ ctx }) => mobile.list(ctx.user)),
    revokeDevice: adminProcedure.input(ById).mutation(({ input, ctx }) => mobile.revoke(input.id, ctx)),
    deleteDevice: adminProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await mobile.delete(input.id, ctx);
      return { deleted: true };
    }),
  });
}
