import { describe, expect, it } from 'vitest';
import { rangeForEvents, rangeFromQuery, rangeToApi, rangeToQuery } from './dashboard.range';

describe('dashboard range in the URL', () => {
  it('defaults to the last 24 h and keeps the default out of the URL', () => {
    const r = rangeFromQuery({});
    expect(r).toEqual({ range: '24h', date: '', from: '', to: '', refresh: '' });
    expect(rangeToQuery(r)).toEqual({});
    expect(rangeForEvents(r)).toEqual({ range: '24h' });
  });
  it('round-trips relative, day and absolute ranges with the refresh interval', () => {
    const cases: Record<string, string>[] = [{ range: '7d', refresh: '1m' }, { date: '2026-06-03' }, { from: '2026-06-01T08:00', to: '2026-06-02T18:30' }];
    for (const q of cases) {
      expect(rangeToQuery(rangeFromQuery(q))).toEqual(q);
    }
  });
  it('ignores values it does not know instead of sending them on', () => {
    expect(rangeFromQuery({ range: '2y', refresh: '1s', from: 'yesterday' })).toEqual({ range: '24h', date: '', from: '', to: '', refresh: '' });
  });
  it('turns the range into API instants', () => {
    const now = Date.parse('2026-06-10T12:00:00Z');
    expect(rangeToApi(rangeFromQuery({ range: '1h' }), now)).toEqual({ from: '2026-06-10T11:00:00.000Z' });
    const day = rangeToApi(rangeFromQuery({ date: '2026-06-03' }), now);
    expect(Date.parse(day.to!) - Date.parse(day.from!)).toBeGreaterThanOrEqual(23 * 3_600_000);
    expect(rangeToApi(rangeFromQuery({ from: '2026-06-01T08:00' }), now)).toEqual({ from: new Date('2026-06-01T08:00').toISOString() });
  });
});
