/** Time-zone arithmetic with IANA zone names, one helper for the daemon and the console. */

// An IANA name is letters, digits and `/_+-`; this also keeps offsets such as "+03:00", which
// newer Intl versions accept as a time zone, out.
const IANA_ZONE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
const ZONE_CACHE_MAX = 1024;
const zoneCache = new Map<string, boolean>();

/** True when `value` names an IANA time zone the runtime knows (`Europe/Moscow`, `UTC`). */
export function isIanaTimeZone(value: string): boolean {
  const cached = zoneCache.get(value);
  if (cached !== undefined) return cached;
  let known = false;
  if (value.length <= 64 && IANA_ZONE.test(value)) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      known = true;
    } catch {
      known = false;
    }
  }
  // Bounded: the names come from untrusted payloads.
  if (zoneCache.size >= ZONE_CACHE_MAX) zoneCache.clear();
  zoneCache.set(value, known);
  return known;
}

/** The IANA zone names this runtime knows (what `isIanaTimeZone` accepts, aliases aside), for API documents. */
export const KNOWN_TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => IANA_ZONE.test(z))];

function zoneParts(ms: number, timeZone: string): (type: string) => string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  return (type) => parts.find((p) => p.type === type)?.value ?? '00';
}

/** Calendar date and minute of the day of an instant in an IANA time zone. */
export function localParts(ms: number, timeZone: string): { day: string; minuteOfDay: number; time: string } {
  const get = zoneParts(ms, timeZone);
  const day = `${get('year')}-${get('month')}-${get('day')}`;
  return {
    day,
    minuteOfDay: Number(get('hour')) * 60 + Number(get('minute')),
    time: `${day} ${get('hour')}:${get('minute')}:${get('second')}`,
  };
}

/** Offset of `timeZone` from UTC at the instant `utcMs`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(timeZone: string, utcMs: number): number {
  const get = (type: string) => Number(zoneParts(utcMs, timeZone)(type));
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** Local midnight of a calendar date in a time zone, as UTC ms (checked twice for DST edges). */
function localMidnight(y: number, m: number, d: number, timeZone: string): number {
  const guess = Date.UTC(y, m - 1, d);
  const first = guess - zoneOffsetMs(timeZone, guess);
  return guess - zoneOffsetMs(timeZone, first);
}

/** [start, end) in UTC ms of the calendar day `date` (YYYY-MM-DD) in `timeZone` (default UTC). */
export function dayRange(date: string, timeZone = 'UTC'): { from_ms: number; to_ms: number } {
  const [y, m, d] = date.split('-').map(Number);
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return {
    from_ms: localMidnight(y, m, d, timeZone),
    to_ms: localMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), timeZone),
  };
}
