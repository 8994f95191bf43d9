import { z } from 'zod';
import { UserCreateSchema, UserPatchSchema } from '../../../shared/src/index.js';
import type { UsersService } from './users.service.js';
import { adminProcedure, router } from '../http/index.js';

const ById = z.strictObject({ id: z.string().min(1).max(64) });

/** tRPC `users.*` (admin): list, byId, create, update (role, active, display name, password), delete. */
export function usersRouter(users: UsersService) {
  return router({
    list: adminProcedure.query(() => users.list()),
    byId: adminProcedure.input(ById).query(({ input }) => users.byId(input.id)),
    create: adminProcedure.input(UserCreateSchema).mutation(({ input, ctx }) => users.create(input, ctx)),
    update: adminProcedure
      .input(z.strictObject({ id: ById.shape.id, patch: UserPatchSchema }))
      .mutation(({ input, ctx }) => users.update(input.id, input.patch, ctx)),
    delete: adminProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await users.delete(input.id, ctx);
      return { deleted: true };
    }),
  });
}
