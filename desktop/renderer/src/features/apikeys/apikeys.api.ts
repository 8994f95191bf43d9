import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type ApiKeyRow = RouterOutputs['apiKeys']['list'][number];

export const apiKeysApi = {
  list: () => call(() => trpc.apiKeys.list.query()),
  create: (label: string) => call(() => trpc.apiKeys.create.mutate({ label })),
  revoke: (id: string) => call(() => trpc.apiKeys.revoke.mutate({ id })),
};
