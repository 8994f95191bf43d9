import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { groupsApi, type GroupSaveInput } from './groups.api';

/** Host groups: the list (also what the group filters offer), and the changes that reload it. */
export const useGroupsStore = defineStore('groups', () => {
  const list = useResource(() => groupsApi.list());
  const after = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    await list.load();
    return result;
  };
  return {
    list,
    /** Loads the list unless it is there already (the filters share it). */
    ensure: () => (list.data.value ? Promise.resolve() : list.load()),
    save: (id: string | null, input: GroupSaveInput) => after(id ? groupsApi.update(id, input) : groupsApi.create(input)),
    remove: (id: string) => after(groupsApi.remove(id)),
  };
});
