import type { LocationQuery } from 'vue-router';
import { RANGES, REFRESHES, type RangeKey, type RefreshKey } from '../../utils/time-range';

/**
 * The dashboard's time range and auto-refresh in the URL, with the same keys as the Events page
 * (`?range=7d`, `?date=2026-06-03`, `?from=…&to=…` as local date-times, `?refresh=1m`), so a
 * tile's link to Events carries the range along. No range means the last 24 hours.
 */
export interface DashboardRange {
  range: RangeKey | '';
  date: string;
  from: string;
  to: string;
  refresh: RefreshKey | '';
}

const one = (v: LocationQuery[string]) => (typeof v === 'string' ? v : '');
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

export function rangeFromQuery(query: LocationQuery): DashboardRange {
  const range = one(query.range);
  const refresh = one(query.refresh);
  const relative = range in RANGES ? (range as RangeKey) : '';
  const date = DAY.test(one(query.date)) ? one(query.date) : '';
  const from = LOCAL.test(one(query.from)) ? one(query.from) : '';
  const to = LOCAL.test(one(query.to)) ? one(query.to) : '';
  const absolute = !relative && (date || from || to);
  return {
    range: absolute ? '' : relative || '24h',
    date: relative ? '' : date,
    from: relative || date ? '' : from,
    to: relative || date ? '' : to,
    refresh: refresh in REFRESHES ? (refresh as RefreshKey) : '',
  };
}

/** The URL query of a range; the default (last 24 h, no refresh) is an empty query. */
export function rangeToQuery(r: DashboardRange): Record<string, string> {
  const q: Record<string, string> = {};
  if (r.range && r.range !== '24h') q.range = r.range;
  if (!r.range && r.date) q.date = r.date;
  if (!r.range && !r.date && r.from) q.from = r.from;
  if (!r.range && !r.date && r.to) q.to = r.to;
  if (r.refresh) q.refresh = r.refresh;
  return q;
}

/** The same range for a link to the Events page (which has no default range of its own). */
export function rangeForEvents(r: DashboardRange): Record<string, string> {
  const { refresh: _r, ...q } = rangeToQuery({ ...r, refresh: '' });
  return r.range ? { range: r.range } : q;
}

/** `dashboards.*` input: a relative range counts back from `nowMs`; local times become instants. */
export function rangeToApi(r: DashboardRange, nowMs = Date.now()): { from?: string; to?: string } {
  if (r.range) return { from: new Date(nowMs - RANGES[r.range]).toISOString() };
  if (r.date) {
    const start = new Date(`${r.date}T00:00:00`);
    const end = new Date(start);
    end.setDate(end.getDate() + 1);
    return { from: start.toISOString(), to: end.toISOString() };
  }
  return { ...(r.from ? { from: new Date(r.from).toISOString() } : {}), ...(r.to ? { to: new Date(r.to).toISOString() } : {}) };
}
