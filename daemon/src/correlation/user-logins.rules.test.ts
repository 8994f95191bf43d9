import { describe, expect, it } from 'vitest';
import type { LoginSighting } from '../../../shared/src/index.js';
import type { BaselineValue, SourceFailure } from '../store/index.js';
import {
  BASELINE_KEEP,
  baselineIncrements,
  baselineOverflow,
  baselineView,
  countryDistanceKm,
  earlierLinks,
  failuresByHost,
  firstAtOrBefore,
  greatCircleKm,
  impossibleTravel,
  reachesHosts,
  type UserLoginSighting,
} from './user-logins.rules.js';

const T0 = Date.parse('2026-05-01T08:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function sighting(at: number, country: string | null, asn: number | null = null): LoginSighting {
  return { event_id: `e-${at}-${country}`, at: new Date(at).toISOString(), host_id: 'h1', hostname: 'WEB01', address: '203.0.113.1', country, asn, as_org: asn === null ? null : `AS ${asn}` };
}
const login = (at: number, country: string | null, asn: number | null = null, user = 'alice'): UserLoginSighting => ({
  user,
  success: true,
  type: 'rdp.login.success',
  occurred_ms: at,
  sighting: sighting(at, country, asn),
});

describe('distances', () => {
  it('great-circle distance: Paris to London about 344 km, a quarter of the equator about 10,008 km', () => {
    expect(greatCircleKm([48.8566, 2.3522], [51.5074, -0.1278])).toBeCloseTo(344, -1);
    expect(greatCircleKm([0, 0], [0, 90])).toBeCloseTo(10_008, -1);
  });

  it('country centroids: Germany to the United States about 7,500 km; an unknown code has none', () => {
    expect(countryDistanceKm('DE', 'US')).toBeGreaterThan(7000);
    expect(countryDistanceKm('DE', 'US')).toBeLessThan(8000);
    expect(countryDistanceKm('DE', 'XX')).toBeNull();
  });
});

describe('impossible travel', () => {
  it('is faster than the limit between two countries; same country, slow or unknown is not', () => {
    const to = sighting(T0 + 30 * 60_000, 'CA');
    const trip = impossibleTravel(to, [sighting(T0, 'GB')], 900);
    expect(trip).toMatchObject({ from: { country: 'GB' }, to: { country: 'CA' }, minutes: 30 });
    expect(Math.abs(trip!.speed_kmh - trip!.distance_km * 2)).toBeLessThan(2);
    expect(impossibleTravel(to, [sighting(T0, 'CA')], 900)).toBeNull();
    expect(impossibleTravel(sighting(T0 + 10 * HOUR, 'US'), [sighting(T0, 'DE')], 900)).toBeNull();
    expect(impossibleTravel(to, [sighting(T0, null)], 900)).toBeNull();
  });

  it('orders the two logins by time whichever arrives second, and counts at least a minute between them', () => {
    const trip = impossibleTravel(sighting(T0, 'GB'), [sighting(T0, 'CA')], 900);
    expect(trip?.minutes).toBe(0);
    expect(Math.abs(trip!.speed_kmh - trip!.distance_km * 60)).toBeLessThan(60);
    expect(impossibleTravel(sighting(T0, 'GB'), [sighting(T0 + 30 * 60_000, 'CA')], 900)).toMatchObject({ from: { country: 'GB' }, to: { country: 'CA' } });
  });
});

describe('baseline counts', () => {
  it('counts logins, countries, ASNs, hosts and hours, and a value unseen for the learning period starts afresh', () => {
    const counts = baselineIncrements([login(T0, 'DE', 64500), login(T0 + DAY, 'DE', 64500), login(T0 + 40 * DAY, 'DE', null)], 30 * DAY);
    const de = counts.get('alice\u0000country\u0000DE')!;
    expect(de).toMatchObject({ count: 1, first_ms: T0 + 40 * DAY, last_ms: T0 + 40 * DAY });
    expect(counts.get('alice\u0000asn\u000064500')).toMatchObject({ count: 2, first_ms: T0, last_ms: T0 + DAY, label: 'AS 64500' });
    expect(counts.get('alice\u0000hour\u00008')).toMatchObject({ count: 1 });
    expect(de.sighting?.at).toBe(new Date(T0 + 40 * DAY).toISOString());
  });

  it('keeps at most BASELINE_KEEP values per user and dimension: the least recently seen go', () => {
    const values: BaselineValue[] = Array.from({ length: BASELINE_KEEP + 2 }, (_, i) => ({
      user: 'alice', dim: 'asn', value: String(i), label: null, count: 1, first_ms: T0 + i, last_ms: T0 + i, sighting: null,
    }));
    expect(baselineOverflow(values).map((v) => v.value).sort()).toEqual(['0', '1']);
    expect(baselineOverflow(values.slice(0, BASELINE_KEEP))).toEqual([]);
  });

  it('the view: most frequent first, 24 hours, learning until first login plus the learning period', () => {
    const values = [...baselineIncrements([login(T0, 'DE'), login(T0 + HOUR, 'US'), login(T0 + 2 * HOUR, 'US')], 30 * DAY).values()];
    const view = baselineView('alice', values, 30 * DAY)!;
    expect(view.countries.map((c) => [c.value, c.count])).toEqual([['US', 2], ['DE', 1]]);
    expect(view.hours).toHaveLength(24);
    expect(view.hours.slice(8, 11)).toEqual([1, 1, 1]);
    expect(view.learning_until).toBe(new Date(T0 + 30 * DAY).toISOString());
    expect(baselineView('bob', [], 30 * DAY)).toBeNull();
  });
});

describe('failures of a source address in a window', () => {
  // Newest first, as the store lists them: three hosts, two failures at T0 + 30 s.
  const rows: SourceFailure[] = [
    { event_id: 'f5', address: '203.0.113.9', host_id: 'h3', hostname: 'WEB03', occurred_ms: T0 + 40_000 },
    { event_id: 'f4', address: '203.0.113.9', host_id: 'h1', hostname: 'WEB01', occurred_ms: T0 + 30_000 },
    { event_id: 'f3', address: '203.0.113.9', host_id: 'h2', hostname: 'WEB02', occurred_ms: T0 + 30_000 },
    { event_id: 'f2', address: '203.0.113.9', host_id: 'h1', hostname: 'WEB01', occurred_ms: T0 + 10_000 },
    { event_id: 'f1', address: '203.0.113.9', host_id: 'h1', hostname: 'WEB01', occurred_ms: T0 },
  ];
  const window = (at: number, ms: number) => rows.slice(firstAtOrBefore(rows, at), firstAtOrBefore(rows, at - ms - 1)).map((f) => f.event_id);

  it('finds the run of failures in [at - window, at], both ends included', () => {
    expect(window(T0 + 30_000, 20_000)).toEqual(['f4', 'f3', 'f2']);
    expect(window(T0 + 29_999, 29_999)).toEqual(['f2', 'f1']);
    expect(window(T0 + 100_000, 1_000)).toEqual([]);
    expect(window(T0 - 1, 60_000)).toEqual([]);
    expect(window(T0 + 40_000, 40_000)).toEqual(['f5', 'f4', 'f3', 'f2', 'f1']);
    expect(firstAtOrBefore([], T0)).toBe(0);
  });

  it('counts distinct hosts up to the threshold', () => {
    expect(reachesHosts(rows, 3)).toBe(true);
    expect(reachesHosts(rows, 4)).toBe(false);
    expect(reachesHosts(rows.slice(3), 2)).toBe(false);
    expect(reachesHosts([], 0)).toBe(true);
  });

  it('links up to the limit of the other failures, newest first, not counted', () => {
    expect(earlierLinks(rows, 'f4', 3)).toEqual([
      { event_id: 'f5', occurred_ms: T0 + 40_000, counted: false },
      { event_id: 'f3', occurred_ms: T0 + 30_000, counted: false },
      { event_id: 'f2', occurred_ms: T0 + 10_000, counted: false },
    ]);
    expect(earlierLinks(rows, 'none', 50)).toHaveLength(5);
  });

  it('lists failures per host, most first, then by name, with the last time', () => {
    expect(failuresByHost(rows)).toEqual([
      { host_id: 'h1', hostname: 'WEB01', count: 3, last_at: new Date(T0 + 30_000).toISOString() },
      { host_id: 'h2', hostname: 'WEB02', count: 1, last_at: new Date(T0 + 30_000).toISOString() },
      { host_id: 'h3', hostname: 'WEB03', count: 1, last_at: new Date(T0 + 40_000).toISOString() },
    ]);
  });
});
