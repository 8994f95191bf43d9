import { defineStore } from 'pinia';
import type { SuggestField } from '../../../../../shared/src/suggest.schema';
import { suggestApi } from './suggest.api';

/** Values the data holds for the filter fields (asked as the user types; nothing kept between asks). */
export const useSuggestStore = defineStore('suggest', () => {
  const values = (field: SuggestField, text: string) => suggestApi.values(field, text);

  /** The names among `names` that are no host's name (case-insensitive, as maintenance windows match them). */
  async function unknownHostnames(names: readonly string[]): Promise<string[]> {
    const unknown: string[] = [];
    for (const name of new Set(names.map((n) => n.toLowerCase()))) {
      const known = await suggestApi.values('host', name, 50);
      if (!known.some((h) => h.toLowerCase() === name)) unknown.push(name);
    }
    return unknown;
  }
  return { values, unknownHostnames };
});
