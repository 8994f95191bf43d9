import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { hostsApi } from './hosts.api';

/** Hosts: search, the selected host with its inventory, and deletion (admin; the server checks too). */
export const useHostsStore = defineStore('hosts', () => {
  const q = ref('');
  const list = useResource(async () => (await hostsApi.list(q.value.trim())).items);
  const selectedId = ref<string | null>(null);
  const detail = useResource(() => hostsApi.byId(selectedId.value!));

  async function search(text: string) {
    q.value = text;
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
  return { q, list, selectedId, detail, search, select, remove };
});
