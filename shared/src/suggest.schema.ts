import { z } from 'zod';

/** The filter fields the console offers values for (`suggest.values`). */
export const SUGGEST_FIELDS = ['host', 'user', 'ip', 'type', 'rule'] as const;
export type SuggestField = (typeof SUGGEST_FIELDS)[number];

/** Most values one suggestion answer holds. */
export const SUGGEST_LIMIT_MAX = 50;
/** Longest text a suggestion is asked for. */
export const SUGGEST_TEXT_MAX = 128;

/**
 * `GET /api/v1/suggestions` and `suggest.values`: the known values of a field that contain `prefix`
 * (case-insensitive), those starting with it first. An empty or absent `prefix` answers the first
 * values in order.
 */
export const SuggestQuerySchema = z.strictObject({
  field: z.enum(SUGGEST_FIELDS, { error: `must be one of ${SUGGEST_FIELDS.join(', ')}` }),
  prefix: z.string().max(SUGGEST_TEXT_MAX, `must be at most ${SUGGEST_TEXT_MAX} characters`).optional(),
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(SUGGEST_LIMIT_MAX, `must be at most ${SUGGEST_LIMIT_MAX}`)
    .default(20),
});
export type SuggestQuery = z.input<typeof SuggestQuerySchema>;

/** The answer of `suggest.values`. */
export interface SuggestAnswer {
  field: SuggestField;
  values: string[];
}
