import type { SuggestField } from '../../../../../shared/src/suggest.schema';
import { call, trpc } from '../../api/trpc';

export const suggestApi = {
  /** Known values of a filter field containing `text` (case-insensitive), those starting with it first. */
  values: async (field: SuggestField, text: string, limit = 12) => (await call(() => trpc.suggest.values.query({ field, prefix: text, limit }))).values,
};

/** The names among `names` that are no host's name (case-insensitive, as maintenance windows match them). */
export async function unknownHostnames(names: readonly string[]): Promise<string[]> {
  const unknown: string[] = [];
  for (const name of new Set(names.map((n) => n.toLowerCase()))) {
    const known = await suggestApi.values('host', name, 50);
    if (!known.some((h) => h.toLowerCase() === name)) unknown.push(name);
  }
  return unknown;
}
