import { invalidParameter } from '../errors.js';

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

