import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { useLiveStore } from '../live/live.store';
import { ref } from 'vue';
import { dashboardApi, type DashboardRangeInput } from './dashboard.api';
import { rangeFromQuery, rangeToApi, type DashboardRange } from './dashboard.range';

/** Minimum time between summary reloads triggered by the live stream. */
export const LIVE_REFRESH_MS = 1500;

/**
 * The dashboard summary and the 24 h hourly series, reloaded (at most every LIVE_REFRESH_MS) when the stream reports new
 * events or problem changes, so counters move while the operator watches.
 */
export const useDashboardStore = defineStore('dashboard', () => {
  /** The range shown; a relative one is counted back from the time of each load. */
  const range = ref<DashboardRange>(rangeFromQuery({}));
  /** The host group counted (its id); empty: every host the user sees. */
  const group = ref('');
  let input: DashboardRangeInput = {};
  const summary = useResource(() => dashboardApi.summary(input));
  const hourly = useResource(() => dashboardApi.eventsPerHour(input));
  const live = useLiveStore();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastLoad = 0;

  function refreshSoon() {
    if (timer) return;
    const wait = Math.max(0, lastLoad + LIVE_REFRESH_MS - Date.now());
    timer = setTimeout(() => {
      timer = null;
      void load();
    }, wait);
  }

  async function load() {
    lastLoad = Date.now();
    input = { ...rangeToApi(range.value, lastLoad), ...(group.value ? { group: group.value } : {}) };
    await Promise.all([summary.load(), hourly.load()]);
  }

  async function setRange(r: DashboardRange, groupId = '') {
    range.value = r;
    group.value = groupId;
    await load();
  }

  /** Starts following the stream; returns the function that stops it. */
  function follow(): () => void {
    const off = live.subscribe(
      ['event.ingested', 'problem.opened', 'problem.resolved', 'problem.acknowledged', 'problem.reopened', 'host.status_changed'],
      // A range that ended in the past does not move with new events.
      () => {
        if (range.value.range || (!range.value.date && !range.value.to)) refreshSoon();
      },
    );
    return () => {
      off();
      if (timer) clearTimeout(timer);
      timer = null;
    };
  }

  return { ...summary, hourly, range, group, load, setRange, follow };
});
