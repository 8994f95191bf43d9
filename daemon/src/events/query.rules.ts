import { AppError } from '../errors.js';

/** A 400 naming the query parameter that is wrong. */
export function invalidParameter(parameter: string, message: string, issues?: unknown[]): AppError {
  return new AppError('request/invalid_parameter', `${parameter}: ${message}`, {
    details: issues ? { parameter, issues } : { parameter },
  });
}

/** An opaque page cursor: the keyset position of the last item, base64url JSON. */
export function encodeCursor(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function decodeCursor<T>(cursor: string, valid: (v: Record<string, unknown>) => v is Record<string, unknown> & T): T {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidParameter('cursor', 'is not a cursor this API returned');
  }
  if (!value || typeof value !== 'object' || !valid(value as Record<string, unknown>)) {
    throw invalidParameter('cursor', 'is not a cursor this API returned');
  }
  return value as T;
}

/** Milliseconds of an ISO 8601 date-time (already validated by the query schema). */
export function parseInstant(value: string): number {
  return Date.parse(value);
}

/** Offset of `timeZone` from UTC at the instant `utcMs`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(timeZone: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
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
