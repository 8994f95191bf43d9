import { describe, expect, it } from 'vitest';
import { dayRange, isIanaTimeZone, localParts, zoneOffsetMs } from './time-zone.js';

describe('time zones', () => {
  it.each([
    ['Europe/Moscow', true],
    ['UTC', true],
    ['America/Argentina/Buenos_Aires', true],
    ['Etc/GMT+3', true],
    ['Mars/Olympus_Mons', false],
    ['+03:00', false],
    ['', false],
    ['Europe/../../etc', false],
  ])('%s is valid: %s', (tz, ok) => {
    expect(isIanaTimeZone(tz)).toBe(ok);
    // Cached answers are the same answers.
    expect(isIanaTimeZone(tz)).toBe(ok);
  });

  it('gives the local calendar day and time of an instant', () => {
    expect(localParts(Date.parse('2026-06-03T23:30:00Z'), 'UTC').time).toBe('2026-06-03 23:30:00');
    expect(localParts(Date.parse('2026-06-03T23:30:00Z'), 'Asia/Vladivostok')).toEqual({
      day: '2026-06-04',
      minuteOfDay: 9 * 60 + 30,
      time: '2026-06-04 09:30:00',
    });
  });

  it('knows the offset on both sides of a DST change', () => {
    expect(zoneOffsetMs('Europe/Berlin', Date.parse('2026-01-15T12:00:00Z'))).toBe(3_600_000);
    expect(zoneOffsetMs('Europe/Berlin', Date.parse('2026-07-15T12:00:00Z'))).toBe(7_200_000);
  });

  it('spans a local day, 23 hours long on the spring-forward day', () => {
    expect(dayRange('2026-06-03', 'Europe/Moscow')).toEqual({
      from_ms: Date.parse('2026-06-02T21:00:00Z'),
      to_ms: Date.parse('2026-06-03T21:00:00Z'),
    });
    const spring = dayRange('2026-03-29', 'Europe/Berlin');
    expect(spring.to_ms - spring.from_ms).toBe(23 * 3_600_000);
  });
});
