/**
 * Event type patterns as settings use them (hidden types, severity overrides, per-type problem
 * choices): an exact type or a dotted prefix.
 */

/**
 * True when `type` is `pattern` or lies below it (`rdg.connection` matches `rdg.connection.failed`).
 * A trailing `.*` or `.` in the pattern means the same.
 */
export function typeMatches(type: string, pattern: string): boolean {
  const p = pattern.replace(/\.\*$|\.$/, '');
  return type === p || type.startsWith(`${p}.`);
}

/** The pattern of `byPattern` that decides for `type`: its exact type, else the longest matching prefix; undefined when none matches. */
export function mostSpecificPattern(type: string, byPattern: Readonly<Record<string, unknown>>): string | undefined {
  let best: { len: number; pattern: string } | undefined;
  for (const pattern of Object.keys(byPattern)) {
    if (!typeMatches(type, pattern)) continue;
    const len = pattern.replace(/\.\*$|\.$/, '').length + (pattern === type ? 1 : 0);
    if (!best || len > best.len) best = { len, pattern };
  }
  return best?.pattern;
}

/** The value of the most specific pattern matching `type` (see `mostSpecificPattern`). */
export function mostSpecific<T>(type: string, byPattern: Readonly<Record<string, T>>): T | undefined {
  const pattern = mostSpecificPattern(type, byPattern);
  return pattern === undefined ? undefined : byPattern[pattern];
}
