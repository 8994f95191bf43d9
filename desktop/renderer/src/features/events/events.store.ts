import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiError } from '../../api/http';
import { toApiError } from '../../api/trpc';
import { useResource } from '../../composables/useResource';
import { eventsApi, type EventRow } from './events.api';
import { eventsCsv } from './events.csv';
import { filtersToApi, type EventFilters } from './events.filters';

const PAGE = 100;
const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The Events list for the filters in the URL: first page, "load more", the detail pane and CSV export. */
export const useEventsStore = defineStore('events', () => {
  const items = shallowRef<EventRow[]>([]);
  const nextCursor = ref<string | null>(null);
  /** Every event matching the filters (the first page asks for it). */
  const total = ref<number | null>(null);
  const loading = ref(false);
  const error = shallowRef<ApiError | null>(null);
  const filters = shallowRef<EventFilters | null>(null);
  const selectedId = ref<string | null>(null);
  const detail = useResource(() => eventsApi.byId(selectedId.value!));
  const exporting = ref<number | null>(null);
  let seq = 0;

  async function fetchPage(f: EventFilters, cursor?: string) {
    return eventsApi.list({ ...filtersToApi(f, timeZone()), limit: PAGE, cursor, total: cursor ? undefined : true });
  }

  async function load(f: EventFilters) {
    const mine = ++seq;
    filters.value = f;
    loading.value = true;
    try {
      const page = await fetchPage(f);
      if (mine !== seq) return;
      items.value = page.items;
      nextCursor.value = page.next_cursor;
      total.value = page.total ?? null;
      error.value = null;
    } catch (err) {
      if (mine === seq) error.value = toApiError(err);
    } finally {
      if (mine === seq) loading.value = false;
    }
  }

  async function loadMore() {
    if (!nextCursor.value || !filters.value) return;
    const mine = seq;
    loading.value = true;
    try {
      const page = await fetchPage(filters.value, nextCursor.value);
      if (mine !== seq) return;
      items.value = [...items.value, ...page.items];
      nextCursor.value = page.next_cursor;
    } catch (err) {
      error.value = toApiError(err);
    } finally {
      loading.value = false;
    }
  }

  async function select(id: string | null) {
    selectedId.value = id;
    if (id) await detail.load();
  }

  /** CSV of every event matching the current filters; `exporting` counts rows while it runs. */
  async function exportCsv(): Promise<{ csv: string; rows: number }> {
    const f = filters.value!;
    exporting.value = 0;
    try {
      return await eventsCsv(
        (cursor, limit) => eventsApi.list({ ...filtersToApi(f, timeZone()), limit, cursor }),
        (n) => (exporting.value = n),
      );
    } finally {
      exporting.value = null;
    }
  }

  /** The first page again, for the same filters (Retry). */
  async function reload() {
    if (filters.value) await load(filters.value);
  }
  return { items, nextCursor, total, loading, error, filters, selectedId, detail, exporting, load, reload, loadMore, select, exportCsv };
});
