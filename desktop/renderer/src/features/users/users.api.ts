import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type UserRow = RouterOutputs['users']['list'][number];
export type UserCreateInput = RouterInputs['users']['create'];
export type UserPatch = RouterInputs['users']['update']['patch'];

export const usersApi = {
  list: () => call(() => trpc.users.list.query()),
  create: (input: UserCreateInput) => call(() => trpc.users.create.mutate(input)),
  update: (id: string, patch: UserPatch) => call(() => trpc.users.update.mutate({ id, patch })),
  remove: (id: string) => call(() => trpc.users.delete.mutate({ id })),
  /** Lifts the user's sign-in lock (after repeated failures). */
  unlock: (id: string) => call(() => trpc.users.unlock.mutate({ id })),
};
