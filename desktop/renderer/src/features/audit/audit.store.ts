import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import { auditApi, type AuditQuery, type AuditRow } from './audit.api';

const PAGE = 100;

/** The audit log (admin), newest first, paged by the last entry's time, with the total of the filters. */
export const useAuditStore = defineStore('audit', () => {
  const items = shallowRef<AuditRow[]>([]);
  const loading = ref(false);
  const error = shallowRef<ApiError | null>(null);
  const more = ref(false);
  /** Entries matching the filters; null until counted (or when counting failed). */
  const total = ref<number | null>(null);
  let query: AuditQuery = { limit: PAGE };

  async function fetch(append: boolean) {
    loading.value = true;
    try {
      const before = append ? items.value.at(-1)?.at : query.before;
      const [page, count] = await Promise.all([auditApi.list({ ...query, limit: PAGE, before }), append ? Promise.resolve(total.value) : auditApi.count(query).catch(() => null)]);
      total.value = count;
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
  return { items, loading, error, more, total, load, loadMore: () => fetch(true), reload: () => fetch(false) };
});
