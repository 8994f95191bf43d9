import { z } from 'zod';
import { ApiKeyCreateSchema } from '../../../shared/src/index.js';
import type { ApiKeysAdmin } from './api-keys.admin.js';
import { adminProcedure, router } from '../http/index.js';

/** tRPC `apiKeys.*` (admin): list, create (the secret is in the answer once), revoke. */
export function apiKeysRouter(keys: ApiKeysAdmin) {
  return router({
    list: adminProcedure.query(() => keys.list()),
    create: adminProcedure.input(ApiKeyCreateSchema).mutation(({ input, ctx }) => keys.create(input, ctx)),
    revoke: adminProcedure.input(z.strictObject({ id: z.string().min(1).max(64) })).mutation(async ({ input, ctx }) => {
      await keys.revoke(input.id, ctx);
      return { revoked: true };
    }),
  });
}
