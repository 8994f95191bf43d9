import { defineStore } from 'pinia';
import { ref } from 'vue';
import { useResource } from '../../composables/useResource';
import { reportsApi } from './reports.api';

/** Daily reports: the list, the opened report's HTML, and generating one now (admin). */
export const useReportsStore = defineStore('reports', () => {
  const list = useResource(reportsApi.list);
  const openId = ref<string | null>(null);
  const opened = useResource(() => reportsApi.byId(openId.value!));
  async function open(id: string | null) {
    openId.value = id;
    if (id) await opened.load();
  }
  async function generate() {
    const { report } = await reportsApi.generate();
    await list.load();
    await open(report.id);
  }
  return { list, openId, opened, open, generate };
});
