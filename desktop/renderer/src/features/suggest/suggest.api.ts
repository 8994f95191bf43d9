import type { SuggestField } from '../../../../../shared/src/suggest.schema';
import { call, trpc } from '../../api/trpc';

export const suggestApi = {
  /** Known values of a filter field containing `text` (case-insensitive), those starting with it first. */
  values: async (field: SuggestField, text: string, limit = 12) => (await call(() => trpc.suggest.values.query({ field, prefix: text, limit }))).values,
};
