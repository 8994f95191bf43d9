import { defineStore } from 'pinia';
import { computed } from 'vue';
import { useResource } from '../../composables/useResource';
import { apirefApi, referenceRows } from './apiref.api';

/** The API reference: the daemon's OpenAPI document and its operations as rows. */
export const useApirefStore = defineStore('apiref', () => {
  const document = useResource(apirefApi.document);
  const rows = computed(() => (document.data.value ? referenceRows(document.data.value) : null));
  return { document, rows };
});
