import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import { useResource } from '../../composables/useResource';
import { hostsApi } from '../hosts/hosts.api';
import { groupsApi, type GroupMember, type GroupSaveInput } from './groups.api';

/**
 * Host groups: the list (also what the group filters offer), the members a group being edited
 * would have, the groups of one host, a user's group limit, and the changes that reload the list.
 */
export const useGroupsStore = defineStore('groups', () => {
  const list = useResource(() => groupsApi.list());
  /** Every host, to name members from. */
  const hostChoices = useResource(async () => (await hostsApi.list('')).items);
  const hostId = ref('');
  const ofHost = useResource(() => groupsApi.ofHost(hostId.value));
  const userId = ref('');
  const limit = useResource(() => groupsApi.userLimit(userId.value));

  /** The live preview of a group being edited; the newest answer wins. */
  const preview = shallowRef<GroupMember[] | null>(null);
  const previewError = shallowRef<ApiError | null>(null);
  let previewSeq = 0;
  async function previewOf(input: Pick<GroupSaveInput, 'host_ids' | 'rules'> | null) {
    const mine = ++previewSeq;
    if (!input) {
      preview.value = null;
      previewError.value = null;
      return;
    }
    try {
      const members = await groupsApi.preview(input);
      if (mine !== previewSeq) return;
      preview.value = members;
      previewError.value = null;
    } catch (err) {
      if (mine === previewSeq) previewError.value = toApiError(err);
    }
  }

  const after = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    await list.load();
    return result;
  };
  return {
    list,
    hostChoices,
    ofHost,
    limit,
    preview,
    previewError,
    previewOf,
    /** Loads the list unless it is there already (the filters share it). */
    ensure: () => (list.data.value ? Promise.resolve() : list.load()),
    loadOfHost: (id: string) => {
      hostId.value = id;
      return ofHost.load();
    },
    loadLimit: (id: string) => {
      userId.value = id;
      return limit.load();
    },
    setLimit: (id: string, groupIds: string[] | null) => groupsApi.setUserLimit(id, groupIds),
    save: (id: string | null, input: GroupSaveInput) => after(id ? groupsApi.update(id, input) : groupsApi.create(input)),
    remove: (id: string) => after(groupsApi.remove(id)),
  };
});
