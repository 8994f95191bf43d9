import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type UserLogins = RouterOutputs['logins']['user'];
export type UserLogin = UserLogins['logins'][number];

export const loginsApi = {
  /** One user's logins across the fleet and their baseline; the daemon normalises the name. */
  user: (user: string) => call(() => trpc.logins.user.query({ user })),
};
