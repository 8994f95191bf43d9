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
      // The next page starts right after the last entry shown: its time and id (entries of one millisecond are not skipped).
      const last = append ? items.value.at(-1) : undefined;
      const page$ = auditApi.list(last ? { ...query, limit: PAGE, before: last.at, before_id: last.id } : { ...query, limit: PAGE });
      const [page, count] = await Promise.all([page$, append ? Promise.resolve(total.value) : auditApi.count(query).catch(() => null)]);
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
