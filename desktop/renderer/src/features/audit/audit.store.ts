import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import { useResource } from '../../composables/useResource';
import { apiKeysApi } from '../apikeys/apikeys.api';
import { hostsApi } from '../hosts/hosts.api';
import { usersApi } from '../users/users.api';
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
  /** Names for ids in targets: the current hosts, users and keys (deleted ones fall back to the entry's details). */
  const names = useResource(async () => {
    const [hosts, users, keys] = await Promise.allSettled([hostsApi.list(''), usersApi.list(), apiKeysApi.list()]);
    const m = new Map<string, string>();
    if (hosts.status === 'fulfilled') for (const h of hosts.value.items) m.set(`host:${h.id}`, h.hostname);
    if (users.status === 'fulfilled') for (const u of users.value) m.set(`user:${u.id}`, u.username);
    if (keys.status === 'fulfilled') for (const k of keys.value) m.set(`apikey:${k.id}`, k.label);
    return m;
  });
  return { items, loading, error, more, total, names, load, loadMore: () => fetch(true), reload: () => fetch(false) };
});
