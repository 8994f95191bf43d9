import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import { auditApi, type AuditQuery, type AuditRow } from './audit.api';

const PAGE = 100;

/** The audit log (admin), newest first, paged by the last entry's time. */
export const useAuditStore = defineStore('audit', () => {
  const items = shallowRef<AuditRow[]>([]);
  const loading = ref(false);
  const error = shallowRef<ApiError | null>(null);
  const more = ref(false);
  let query: AuditQuery = { limit: PAGE };

  async function fetch(append: boolean) {
    loading.value = true;
    try {
      const before = append ? items.value.at(-1)?.at : query.before;
      const page = await auditApi.list({ ...query, limit: PAGE, before });
      items.value = append ? [...items.value, ...page] : page;
      more.value = page.length === PAGE;
      error.value = null;
    } catch (err) {
      error.value = toApiError(err);
    } finally {
      loading.value = false;
    }
  }
  async function load(q: AuditQuery) {
    query = q;
    await fetch(false);
  }
  return { items, loading, error, more, load, loadMore: () => fetch(true), reload: () => fetch(false) };
});
