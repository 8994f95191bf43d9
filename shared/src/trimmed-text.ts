import { z } from 'zod';

/**
 * JavaScript's white space and line terminators (what `String.prototype.trim` removes), spelled
 * out so the OpenAPI pattern means the same in every regex engine (Python's `\s` differs).
 */
const JS_SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/*
 * Length limits and patterns are checked on the text as sent, before `.trim()`: checked after it,
 * `"\t" + 64 characters` would pass a 64-character limit the OpenAPI document states on the sent
 * text. The lint rule in eslint.config.js keeps `.trim()` last in shared and daemon schemas.
 */

/**
 * Text stored trimmed: at most `max` characters as sent and not blank (a character other than white
 * space), which the document states as a pattern (`minLength` alone would let `"\t"` through).
 */
export function trimmedText(max: number) {
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(new RegExp(`[^${JS_SPACE}]`), 'must not be empty')
    .trim();
}

/** Optional free text stored trimmed (a note): at most `max` characters as sent, may be blank. */
export function trimmedNote(max: number) {
  return z.string().max(max, `must be at most ${max} characters`).trim();
}

/**
 * Text that must match `pattern` (anchored `^…$`, no flags: a JSON Schema pattern carries none)
 * once trimmed; the document's pattern allows the white space around it that is trimmed off.
 */
export function trimmedMatch(pattern: RegExp, max: number, message: string) {
  const { source, flags } = pattern;
  if (flags !== '' || !source.startsWith('^') || !source.endsWith('$')) throw new Error(`trimmedMatch needs an anchored pattern without flags: ${pattern}`);
  const inner = source.slice(1, -1);
  return z
    .string()
    .max(max, `must be at most ${max} characters`)
    .regex(new RegExp(`^[${JS_SPACE}]*(?:${inner})[${JS_SPACE}]*$`), message)
    .trim();
}
