import { MongoBulkWriteError, MongoServerError, type WriteError } from 'mongodb';

/** Helpers shared by the MongoDB repositories. */

export const DUPLICATE_KEY = 11000;

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === DUPLICATE_KEY;
}

/**
 * The write errors of a bulk error (the driver gives one error as an object, several as an array).
 * Empty means the failure was not per document (a lost connection, a write concern): callers must
 * treat that as a failed write, never as "all stored".
 */
export function writeErrorsOf(err: unknown): WriteError[] {
  return err instanceof MongoBulkWriteError ? ([] as WriteError[]).concat(err.writeErrors ?? []) : [];
}

/** True when a bulk insert failed only on keys that already exist (the rest went in). */
export function onlyDuplicates(err: unknown): boolean {
  const errors = writeErrorsOf(err);
  return errors.length > 0 && errors.every((e) => e.code === DUPLICATE_KEY);
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{ $regex }` matching a type pattern itself or any type below it. */
export function typePatternRegex(pattern: string): RegExp {
  return new RegExp(`^${escapeRegex(pattern.replace(/\.\*$|\.$/, ''))}(\\.|$)`);
}

export function hiddenFilter(hidden: string[]): Record<string, unknown> {
  return hidden.length === 0 ? {} : { $nor: hidden.map((p) => ({ type: typePatternRegex(p) })) };
}

export function hiddenAnd(hidden: string[]): Record<string, unknown>[] {
  return hidden.length === 0 ? [] : [hiddenFilter(hidden)];
}
