import { z } from 'zod';

/**
 * JavaScript's white space and line terminators (what `String.prototype.trim` removes), spelled
 * out so the OpenAPI pattern means the same in every regex engine (Python's `\s` differs).
 */
const JS_SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/**
 * Text stored trimmed, 1–`max` characters after trimming. The document says it is not blank (a
 * character other than white space), which `.trim().min(1)` alone does not state.
 */
export function trimmedText(max: number) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .meta({ pattern: `[^${JS_SPACE}]` });
}
