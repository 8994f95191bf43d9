import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { reportsApi } from './reports.api';

/** Daily reports: the list (of one host group or all), the opened report's HTML, and generating one now (admin). */
export const useReportsStore = defineStore('reports', () => {
  const group = ref('');
  const list = useResource(() => reportsApi.list(group.value));
  const openId = ref<string | null>(null);
  const opened = useResource(() => reportsApi.byId(openId.value!));
  async function open(id: string | null) {
    openId.value = id;
    if (id) await opened.load();
  }
  async function setGroup(id: string) {
    group.value = id;
    await list.load();
  }
  async function generate() {
    const { report } = await reportsApi.generate(group.value);
    await list.load();
    await open(report.id);
  }
  return { list, group, openId, opened, open, setGroup, generate };
});
