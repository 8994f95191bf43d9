import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import type { HostSortKey } from '../../../../../shared/src/read-api.schema';
import { hostsApi } from './hosts.api';

/** Hosts: search, the selected host with its inventory, and deletion (admin; the server checks too). */
export const useHostsStore = defineStore('hosts', () => {
  const q = ref('');
  /** Only hosts of this host group (its id; '' for every host). */
  const group = ref('');
  const sort = ref<{ key: HostSortKey; desc: boolean }>({ key: 'hostname', desc: false });
  const list = useResource(async () => (await hostsApi.list(q.value.trim(), sort.value.key, sort.value.desc ? 'desc' : 'asc', group.value)).items);
  const selectedId = ref<string | null>(null);
  const detail = useResource(() => hostsApi.byId(selectedId.value!));

  async function search(text: string, groupId = '') {
    q.value = text;
    group.value = groupId;
    await list.load();
  }
  /** The list is sorted by the daemon (statuses are derived there). */
  async function sortBy(s: { key: HostSortKey; desc: boolean }) {
    sort.value = s;
    await list.load();
  }
  async function select(id: string | null) {
    selectedId.value = id;
    if (id) await detail.load();
  }
  async function remove(id: string) {
    await hostsApi.remove(id);
    if (selectedId.value === id) selectedId.value = null;
    await list.load();
  }
  /** Pins (or, with null, unpins) the address remote actions use for a host, then shows the host as it is now. */
  async function pinAddress(id: string, pin: { address: string; winrm_name: string | null } | null) {
    if (pin) await hostsApi.pin(id, pin);
    else await hostsApi.unpin(id);
    if (selectedId.value === id) await detail.load();
  }
  return { q, group, sort, list, selectedId, detail, search, sortBy, select, remove, pinAddress };
});
