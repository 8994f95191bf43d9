import type { LocationQuery } from 'vue-router';
import { SEVERITIES, type Severity } from '../../../../../shared/src/event.schema';
import { RANGES, REFRESHES, type RangeKey, type RefreshKey } from '../../utils/time-range';

/**
 * The Events filters as they live in the URL
 * (`?hostname=&severity=high,critical&type=rdp.login&range=24h|date=|from=&to=&q=&user=&ip=&country=DE&asn=13335&group=<id>&order=asc&refresh=1m`).
 * A relative `range` wins over `date`, `from` and `to`.
 */
export interface EventFilters {
  hostname: string;
  severity: Severity[];
  type: string;
  range: RangeKey | '';
  date: string;
  from: string;
  to: string;
  q: string;
  user: string;
  ip: string;
  /** Source country (ISO alpha-2) and AS number, as enriched at ingest. */
  country: string;
  asn: string;
  /** Only hosts of this host group (its id). */
  group: string;
  order: 'asc' | '';
  refresh: RefreshKey | '';
}

const one = (v: LocationQuery[string]) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
const TEXT_KEYS = ['hostname', 'type', 'date', 'from', 'to', 'q', 'user', 'ip', 'country', 'asn', 'group'] as const;

export function filtersFromQuery(query: LocationQuery): EventFilters {
  const severity = one(query.severity)
    .split(',')
    .filter((s): s is Severity => (SEVERITIES as readonly string[]).includes(s));
  const range = one(query.range);
  const refresh = one(query.refresh);
  const f: EventFilters = {
    hostname: '',
    severity,
    type: '',
    range: range in RANGES ? (range as RangeKey) : '',
    date: '',
    from: '',
    to: '',
    q: '',
    user: '',
    ip: '',
    country: '',
    asn: '',
    group: '',
    order: one(query.order) === 'asc' ? 'asc' : '',
    refresh: refresh in REFRESHES ? (refresh as RefreshKey) : '',
  };
  for (const key of TEXT_KEYS) f[key] = one(query[key]);
  return f;
}

/** URL query of the filters: empty ones are left out so links stay short. */
export function filtersToQuery(f: EventFilters): Record<string, string> {
  const q: Record<string, string> = {};
  for (const key of TEXT_KEYS) if (f[key] && !(f.range && (key === 'date' || key === 'from' || key === 'to'))) q[key] = f[key];
  if (f.severity.length) q.severity = f.severity.join(',');
  if (f.range) q.range = f.range;
  if (f.order) q.order = f.order;
  if (f.refresh) q.refresh = f.refresh;
  return q;
}

/**
 * `events.list` input for the filters: datetime-local values become ISO instants, a date gets the
 * browser's zone, a relative range is counted back from `nowMs`.
 */
export function filtersToApi(f: EventFilters, timeZone: string, nowMs = Date.now()) {
  const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const relative = f.range ? new Date(nowMs - RANGES[f.range]).toISOString() : undefined;
  return {
    hostname: f.hostname || undefined,
    severity: f.severity.length ? f.severity : undefined,
    type: f.type || undefined,
    date: !f.range && f.date ? f.date : undefined,
    tz: !f.range && f.date ? timeZone : undefined,
    from: relative ?? iso(f.from),
    to: f.range ? undefined : iso(f.to),
    q: f.q || undefined,
    ...userFilter(f.user),
    ip: f.ip || undefined,
    country: f.country || undefined,
    asn: f.asn || undefined,
    group: f.group || undefined,
    order: f.order || undefined,
  };
}

/** The user field: `"ivanov"` in double quotes is the whole name (exact), anything else text in it. */
function userFilter(text: string): { user?: string; user_exact?: true } {
  const quoted = /^"(.+)"$/.exec(text);
  if (quoted) return { user: quoted[1]!, user_exact: true };
  return { user: text || undefined };
}

/** The user field's value that pivots to exactly this user (see `userFilter`). */
export const exactUser = (name: string) => `"${name}"`;

/** Whether anything narrows the list (order and auto-refresh do not). */
export const isFiltered = (f: EventFilters) => Object.keys(filtersToQuery({ ...f, order: '', refresh: '' })).length > 0;
