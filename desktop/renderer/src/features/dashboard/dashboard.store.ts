import { defineStore } from 'pinia';
import { useResource } from '../../composables/useResource';
import { useLiveStore } from '../live/live.store';
import { dashboardApi } from './dashboard.api';

/** Minimum time between summary reloads triggered by the live stream. */
export const LIVE_REFRESH_MS = 1500;

/**
 * The dashboard summary and the 24 h hourly series, reloaded (at most every LIVE_REFRESH_MS) when the stream reports new
 * events or problem changes, so counters move while the operator watches.
 */
export const useDashboardStore = defineStore('dashboard', () => {
  const summary = useResource(dashboardApi.summary);
  const hourly = useResource(dashboardApi.eventsPerHour);
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
    await Promise.all([summary.load(), hourly.load()]);
  }

  /** Starts following the stream; returns the function that stops it. */
  function follow(): () => void {
    const off = live.subscribe(['event.ingested', 'problem.opened', 'problem.resolved', 'problem.acknowledged', 'host.status_changed'], refreshSoon);
    return () => {
      off();
      if (timer) clearTimeout(timer);
      timer = null;
    };
  }

  return { ...summary, hourly, load, follow };
});
