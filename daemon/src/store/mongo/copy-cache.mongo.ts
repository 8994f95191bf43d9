/**
 * This daemon's copies of documents it read or wrote, by key, used for `ttlMs` without reading
 * them again; past `max` entries the least recently set go. On FerretDB every read scans its
 * collection and converts what it returns, so ingest keeps the copies it can check cheaply: each
 * user says what makes a stale copy harmless.
 */
export class CopyCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(private readonly limits: { ttlMs: number; max: number }) {}

  fresh(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || now - entry.at > this.limits.ttlMs) return undefined;
    return entry.value;
  }

  set(key: string, value: V, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, at: now });
    if (this.entries.size > this.limits.max) this.entries.delete(this.entries.keys().next().value!);
  }

  /** Keeps the copy's age: a write made from a copy does not make the rest of it fresher. */
  replace(key: string, value: V): void {
    const entry = this.entries.get(key);
    if (entry) entry.value = value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every copy `matches` picks (one pass over the entries: for rare events such as a deletion). */
  forgetWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
  }
}
