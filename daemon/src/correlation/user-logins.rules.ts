import type { BaselineCount, LoginSighting, UserBaselineView } from '../../../shared/src/index.js';
import type { BaselineDimension, BaselineValue, CommittedEvent, SourceFailure, UserLogin } from '../store/index.js';
import { isSuccessfulLogin, loginSource, loginUser } from './logins.rules.js';
import { COUNTRY_CENTROIDS } from './country-centroids.js';

/*
 * Login intelligence per user: the sightings of logins, the baseline counts they add, the
 * baseline's bounds and view, and the distance between countries.
 */

/** The problem types of the two per-user rules. */
export const NEW_SOURCE_TYPE = 'login.new_source';
export const IMPOSSIBLE_TRAVEL_TYPE = 'login.impossible_travel';

/** Values kept per user and dimension (the most recently seen); beyond, the least recent go. */
export const BASELINE_KEEP = 100;
/** Values per list in a baseline view (the most frequent). */
export const BASELINE_TOP = 20;
/** Logins `logins.user` lists at most. */
export const USER_LOGINS_LIMIT = 500;

const iso = (ms: number) => new Date(ms).toISOString();

/** A login of a known user (not `-`), with what the rules read of it. */
export interface UserLoginSighting {
  user: string;
  success: boolean;
  type: string;
  occurred_ms: number;
  sighting: LoginSighting;
}

type LoginEvent = Pick<CommittedEvent, 'event' | 'host_id' | 'occurred_ms' | 'source_geo'>;

/** A login event as the evidence shows it: where and when, and the source's enrichment. */
export function sightingOf(c: LoginEvent): LoginSighting {
  const geo = c.source_geo ?? null;
  return {
    event_id: c.event.event_id,
    at: iso(c.occurred_ms),
    host_id: c.host_id,
    hostname: c.event.host.hostname,
    address: geo?.ip ?? loginSource(c.event.details),
    country: geo?.country ?? null,
    asn: geo?.asn ?? null,
    as_org: geo?.as_org ?? null,
  };
}

/** The login of a committed (or stored) event, or null when it is no login or names no user. */
export function loginSighting(c: LoginEvent, failed: boolean): UserLoginSighting | null {
  const success = isSuccessfulLogin(c.event.type);
  if (!success && !failed) return null;
  const user = loginUser(c.event.details);
  if (user === '-') return null;
  return { user, success, type: c.event.type, occurred_ms: c.occurred_ms, sighting: sightingOf(c) };
}

/** The failed logins of an address per host, as the cross-host problems' evidence lists them (most first). */
export function failuresByHost(rows: readonly SourceFailure[]): { host_id: string; hostname: string; count: number; last_at: string }[] {
  const hosts = new Map<string, { host_id: string; hostname: string; count: number; last_ms: number }>();
  for (const f of rows) {
    const h = hosts.get(f.host_id);
    if (h) {
      h.count += 1;
      h.last_ms = Math.max(h.last_ms, f.occurred_ms);
    } else hosts.set(f.host_id, { host_id: f.host_id, hostname: f.hostname, count: 1, last_ms: f.occurred_ms });
  }
  return [...hosts.values()]
    .sort((a, b) => b.count - a.count || a.hostname.localeCompare(b.hostname))
    .map(({ last_ms, ...h }) => ({ ...h, last_at: iso(last_ms) }));
}

/**
 * In failures ordered newest first, the index of the first that occurred at or before `ms`
 * (`rows.length` when none did): the failures in a window are the run between two such indexes.
 */
export function firstAtOrBefore(rows: readonly Pick<SourceFailure, 'occurred_ms'>[], ms: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].occurred_ms <= ms) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Whether failures came from at least `n` distinct hosts (stops counting at `n`). */
export function reachesHosts(rows: readonly Pick<SourceFailure, 'host_id'>[], n: number): boolean {
  const hosts = new Set<string>();
  for (const f of rows) {
    hosts.add(f.host_id);
    if (hosts.size >= n) return true;
  }
  return hosts.size >= n;
}

/** The problem links of up to `limit` failures (newest first) other than the event `ownId` itself, not counted. */
export function earlierLinks(rows: readonly SourceFailure[], ownId: string, limit: number): { event_id: string; occurred_ms: number; counted: false }[] {
  const out: { event_id: string; occurred_ms: number; counted: false }[] = [];
  for (const f of rows) {
    if (out.length >= limit) break;
    if (f.event_id !== ownId) out.push({ event_id: f.event_id, occurred_ms: f.occurred_ms, counted: false });
  }
  return out;
}

/** The row `logins.user` keeps of a login. */
export function userLoginRow(l: UserLoginSighting): UserLogin {
  const { at: _at, ...sighting } = l.sighting;
  return { ...sighting, user: l.user, occurred_ms: l.occurred_ms, type: l.type, outcome: l.success ? 'success' : 'failure' };
}

const valueKey = (v: Pick<BaselineValue, 'user' | 'dim' | 'value'>) => `${v.user}\u0000${v.dim}\u0000${v.value}`;

/**
 * Merges `v` into `into` the way the stores do: counts summed, first/last min/max, the newest
 * login's label and sighting; a value not seen for the learning period before `v` starts again
 * (the stores have pruned it by then).
 */
function mergeValue(into: Map<string, BaselineValue>, v: BaselineValue, learningMs: number): void {
  const key = valueKey(v);
  const seen = into.get(key);
  if (!seen || v.first_ms - seen.last_ms > learningMs) {
    into.set(key, { ...v });
    return;
  }
  const newer = v.last_ms >= seen.last_ms;
  into.set(key, {
    ...seen,
    count: seen.count + v.count,
    first_ms: Math.min(seen.first_ms, v.first_ms),
    last_ms: Math.max(seen.last_ms, v.last_ms),
    label: newer ? v.label : seen.label,
    sighting: newer ? v.sighting : seen.sighting,
  });
}

/**
 * What successful logins (oldest first) add to their users' baselines, one entry per user,
 * dimension and value: the user's count, the country and ASN of a public source (private
 * addresses have none), the host and the hour of day (UTC). `into` accumulates across calls (the
 * rebuild's pages).
 */
export function baselineIncrements(
  logins: readonly UserLoginSighting[],
  learningMs: number,
  into = new Map<string, BaselineValue>(),
): Map<string, BaselineValue> {
  for (const l of logins) {
    if (!l.success) continue;
    const s = l.sighting;
    const one = (dim: BaselineDimension, value: string, label: string | null, sighting: LoginSighting | null = null) =>
      mergeValue(into, { user: l.user, dim, value, label, count: 1, first_ms: l.occurred_ms, last_ms: l.occurred_ms, sighting }, learningMs);
    one('user', '', null);
    if (s.country !== null) one('country', s.country, null, s);
    if (s.asn !== null) one('asn', String(s.asn), s.as_org);
    one('host', s.host_id, s.hostname);
    one('hour', String(new Date(l.occurred_ms).getUTCHours()), null);
  }
  return into;
}

/** The values past `BASELINE_KEEP` per user and dimension: the least recently seen. */
export function baselineOverflow(values: readonly BaselineValue[]): BaselineValue[] {
  const groups = new Map<string, BaselineValue[]>();
  for (const v of values) {
    const key = `${v.user}\u0000${v.dim}`;
    groups.set(key, [...(groups.get(key) ?? []), v]);
  }
  return [...groups.values()].flatMap((g) => (g.length <= BASELINE_KEEP ? [] : [...g].sort((a, b) => b.last_ms - a.last_ms).slice(BASELINE_KEEP)));
}

/** The stored values grouped by user. */
export function valuesByUser(values: readonly BaselineValue[]): Map<string, BaselineValue[]> {
  const out = new Map<string, BaselineValue[]>();
  for (const v of values) out.set(v.user, [...(out.get(v.user) ?? []), v]);
  return out;
}

/** When the user's learning ends: their first login the baseline holds plus the learning period; null without a baseline. */
export function learningUntil(values: readonly BaselineValue[], learningMs: number): number | null {
  const row = values.find((v) => v.dim === 'user');
  return row ? row.first_ms + learningMs : null;
}

function top<V>(values: readonly BaselineValue[], dim: BaselineDimension, value: (v: BaselineValue) => V): BaselineCount<V>[] {
  return values
    .filter((v) => v.dim === dim)
    .sort((a, b) => b.count - a.count || b.last_ms - a.last_ms || a.value.localeCompare(b.value))
    .slice(0, BASELINE_TOP)
    .map((v) => ({ value: value(v), count: v.count, last_seen: iso(v.last_ms) }));
}

/** A user's baseline as the console reads it, from the user's stored values; null without any. */
export function baselineView(user: string, values: readonly BaselineValue[], learningMs: number): UserBaselineView | null {
  const row = values.find((v) => v.dim === 'user');
  if (!row) return null;
  const hours = new Array<number>(24).fill(0);
  for (const v of values) if (v.dim === 'hour') hours[Number(v.value)] = v.count;
  const labels = new Map(values.filter((v) => v.dim === 'asn').map((v) => [v.value, v.label]));
  return {
    user,
    first_seen: iso(row.first_ms),
    learning_until: iso(row.first_ms + learningMs),
    logins: row.count,
    countries: top(values, 'country', (v) => v.value),
    asns: top(values, 'asn', (v) => Number(v.value)).map((c) => ({ ...c, as_org: labels.get(String(c.value)) ?? null })),
    hours,
    hosts: top(values, 'host', (v) => v.label ?? v.value),
  };
}

const EARTH_RADIUS_KM = 6371;

/** Great-circle distance (haversine) between two [latitude, longitude] points, km. */
export function greatCircleKm(a: readonly [number, number], b: readonly [number, number]): number {
  const rad = (d: number) => (d * Math.PI) / 180;
  const dLat = rad(b[0] - a[0]);
  const dLon = rad(b[1] - a[1]);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Distance between two countries' centroids, km; null when either is not in the table. */
export function countryDistanceKm(a: string, b: string): number | null {
  const pa = COUNTRY_CENTROIDS[a];
  const pb = COUNTRY_CENTROIDS[b];
  return pa && pb ? greatCircleKm(pa, pb) : null;
}

/** An impossible journey between two logins of one user. */
export interface Travel {
  from: LoginSighting;
  to: LoginSighting;
  distance_km: number;
  minutes: number;
  speed_kmh: number;
}

/**
 * The fastest journey between `login` and the newest logins of the user's other countries that
 * exceeds `limitKmh`, or null. The time between two logins counts as at least a minute.
 */
export function impossibleTravel(login: LoginSighting, others: readonly LoginSighting[], limitKmh: number): Travel | null {
  if (login.country === null) return null;
  const at = Date.parse(login.at);
  let best: Travel | null = null;
  for (const other of others) {
    if (other.country === null || other.country === login.country) continue;
    const distance = countryDistanceKm(login.country, other.country);
    if (distance === null) continue;
    const otherAt = Date.parse(other.at);
    const minutes = Math.abs(at - otherAt) / 60_000;
    const speed = distance / (Math.max(minutes, 1) / 60);
    if (speed <= limitKmh || (best && best.speed_kmh >= speed)) continue;
    const [from, to] = otherAt <= at ? [other, login] : [login, other];
    best = { from, to, distance_km: Math.round(distance), minutes: Math.round(minutes), speed_kmh: Math.round(speed) };
  }
  return best;
}

export function newSourceTitle(user: string, country: string | null, asn: number | null, asOrg: string | null): string {
  const parts = [country, asn === null ? null : `AS${asn}${asOrg ? ` ${asOrg}` : ''}`].filter((p) => p !== null);
  return `Login of ${user} from a new source: ${parts.join(', ')}`;
}

export function impossibleTravelTitle(user: string, t: Travel): string {
  return `Impossible travel of ${user}: ${t.from.country} → ${t.to.country}, ${t.distance_km} km in ${t.minutes} min`;
}
