import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type HostRow = RouterOutputs['hosts']['list']['items'][number];
export type HostDetail = RouterOutputs['hosts']['byId'];

export const hostsApi = {
  list: (q: string) => call(() => trpc.hosts.list.query(q ? { q } : undefined)),
  byId: (id: string) => call(() => trpc.hosts.byId.query({ id })),
  remove: (id: string) => call(() => trpc.hosts.delete.mutate({ id })),
};
