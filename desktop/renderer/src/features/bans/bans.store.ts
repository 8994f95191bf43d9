import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import type { BanCreateInput } from '../../../../../shared/src/bans.schema';
import { bansApi, type Ban } from './bans.api';

/** Fleet SSH bans: the list, and the changes that reload it. */
export const useBansStore = defineStore('bans', () => {
  const list = useResource(() => bansApi.list());
  const after = async (work: Promise<Ban>): Promise<Ban> => {
    const ban = await work;
    await list.load();
    return ban;
  };
  return {
    list,
    create: (input: BanCreateInput) => after(bansApi.create(input)),
    apply: (id: string) => after(bansApi.apply(id)),
    dismiss: (id: string) => after(bansApi.dismiss(id)),
    unban: (id: string) => after(bansApi.unban(id)),
  };
});
