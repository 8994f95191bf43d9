import type { LocationQuery } from 'vue-router';
import { SEVERITIES, type Severity } from '../../../../../shared/src/event.schema';

/** The Events filters as they live in the URL (`?hostname=&severity=high,critical&type=rdp.login&date=&from=&to=&q=`). */
export interface EventFilters {
  hostname: string;
  severity: Severity[];
  type: string;
  date: string;
  from: string;
  to: string;
  q: string;
}

const one = (v: LocationQuery[string]) => (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();

export function filtersFromQuery(query: LocationQuery): EventFilters {
  const severity = one(query.severity)
    .split(',')
    .filter((s): s is Severity => (SEVERITIES as readonly string[]).includes(s));
  return { hostname: one(query.hostname), severity, type: one(query.type), date: one(query.date), from: one(query.from), to: one(query.to), q: one(query.q) };
}

/** URL query of the filters: empty ones are left out so links stay short. */
export function filtersToQuery(f: EventFilters): Record<string, string> {
  const q: Record<string, string> = {};
  for (const key of ['hostname', 'type', 'date', 'from', 'to', 'q'] as const) if (f[key]) q[key] = f[key];
  if (f.severity.length) q.severity = f.severity.join(',');
  return q;
}

/** `events.list` input for the filters: datetime-local values become ISO instants, a date gets the browser's zone. */
export function filtersToApi(f: EventFilters, timeZone: string) {
  const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return {
    hostname: f.hostname || undefined,
    severity: f.severity.length ? f.severity : undefined,
    type: f.type || undefined,
    date: f.date || undefined,
    tz: f.date ? timeZone : undefined,
    from: iso(f.from),
    to: iso(f.to),
    q: f.q || undefined,
  };
}

export const isFiltered = (f: EventFilters) => Object.keys(filtersToQuery(f)).length > 0;
