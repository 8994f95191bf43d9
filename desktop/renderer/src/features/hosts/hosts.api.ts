import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';
import type { HostPinInput, HostSortKey } from '../../../../../shared/src/read-api.schema';

export type HostRow = RouterOutputs['hosts']['list']['items'][number];
export type HostDetail = RouterOutputs['hosts']['byId'];

export const hostsApi = {
  list: (q: string, sort?: HostSortKey, dir?: 'asc' | 'desc', group = '') => call(() => trpc.hosts.list.query({ ...(q ? { q } : {}), ...(group ? { group } : {}), sort, dir })),
  byId: (id: string) => call(() => trpc.hosts.byId.query({ id })),
  remove: (id: string) => call(() => trpc.hosts.delete.mutate({ id })),
  pin: (id: string, pin: HostPinInput) => call(() => trpc.hosts.pinAddress.mutate({ id, pin })),
  unpin: (id: string) => call(() => trpc.hosts.unpinAddress.mutate({ id })),
};
