import { z } from 'zod';
import { SUGGEST_FIELDS, SuggestQuerySchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { SuggestService } from './suggest.service.js';

/** Suggestions (any signed-in user): known values of a filter field that contain the typed text. */
export function suggestOperations(suggest: SuggestService) {
  return [
    defineOperation({
      id: 'suggest.values',
      summary: 'Known host names, users, addresses, event types or problem rules containing a text (case-insensitive, those starting with it first)',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/suggestions',
      scope: 'filtered',
      input: SuggestQuerySchema,
      output: z.object({ field: z.enum(SUGGEST_FIELDS), values: z.array(z.string()) }),
      handler: (input, caller) => suggest.values(input, caller.scope),
    }),
  ];
}
