import { defineStore } from 'pinia';
import { computed } from 'vue';
import { useResource } from '../../composables/useResource';
import { jobsApi } from './jobs.api';

/** The daemon's periodic jobs; `failing` holds those whose last runs failed. */
export const useJobsStore = defineStore('jobs', () => {
  const list = useResource(jobsApi.list);
  const failing = computed(() => (list.data.value ?? []).filter((j) => j.consecutive_failures > 0));
  return { list, failing };
});
