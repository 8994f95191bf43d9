import { z } from 'zod';
import { UserCreateSchema, UserPatchSchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { UsersService } from './users.service.js';

const User = z.looseObject({ id: z.string(), username: z.string(), role: z.string(), locked_until: z.string().nullable() });
const LAST_ADMIN = { '409': 'Would leave no active admin' } as const;

/**
 * Console users (admin; also for provisioning scripts): list, one, create, change (role, active,
 * display name, password), lift a sign-in lock, delete.
 */
export function usersOperations(users: UsersService) {
  return [
    defineOperation({
      id: 'users.list',
      summary: 'List users',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/users',
      envelope: 'users',
      output: z.array(User),
      handler: () => users.list(),
    }),
    defineOperation({
      id: 'users.byId',
      summary: 'One user',
      role: 'admin',
      method: 'GET',
      input: ByIdInput,
      output: User,
      handler: (input) => users.byId(input.id),
    }),
    defineOperation({
      id: 'users.create',
      summary: 'Create a user',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/users',
      status: 201,
      input: UserCreateSchema,
      output: User,
      errors: { '409': 'Username taken' },
      handler: (input, caller) => users.create(input, caller),
    }),
    defineOperation({
      id: 'users.update',
      summary: 'Change a user',
      role: 'admin',
      method: 'PATCH',
      path: '/api/v1/users/{id}',
      restBody: 'patch',
      input: ByIdInput.extend({ patch: UserPatchSchema }),
      output: User,
      errors: LAST_ADMIN,
      handler: (input, caller) => users.update(input.id, input.patch, caller),
    }),
    defineOperation({
      id: 'users.unlock',
      summary: 'Lift a user\'s sign-in lock (after repeated failed sign-ins) and forget the failures',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/users/{id}/unlock',
      input: ByIdInput,
      output: User,
      handler: (input, caller) => users.unlock(input.id, caller),
    }),
    defineOperation({
      id: 'users.delete',
      summary: 'Delete a user',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/users/{id}',
      status: 204,
      input: ByIdInput,
      output: z.object({ deleted: z.literal(true) }),
      errors: LAST_ADMIN,
      handler: async (input, caller) => {
        await users.delete(input.id, caller);
        return { deleted: true as const };
      },
    }),
  ];
}
