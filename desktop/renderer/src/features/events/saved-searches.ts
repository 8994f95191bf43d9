/** A named Events query (the URL's filters) kept in this browser. */
export interface SavedSearch {
  name: string;
  query: Record<string, string>;
}

const KEY = 'sac.savedSearches';
const MAX = 50;
const MAX_NAME = 80;

function valid(v: unknown): v is SavedSearch {
  if (!v || typeof v !== 'object') return false;
  const s = v as Record<string, unknown>;
  return (
    typeof s.name === 'string' &&
    s.name.length > 0 &&
    !!s.query &&
    typeof s.query === 'object' &&
    Object.values(s.query as Record<string, unknown>).every((x) => typeof x === 'string')
  );
}

/** The saved searches, sorted by name; anything unreadable in storage is ignored. */
export function loadSavedSearches(storage: Pick<Storage, 'getItem'>): SavedSearch[] {
  try {
    const list: unknown = JSON.parse(storage.getItem(KEY) ?? '[]');
    return Array.isArray(list) ? list.filter(valid).sort((a, b) => a.name.localeCompare(b.name)) : [];
  } catch {
    return [];
  }
}

/** Saves (or replaces, by name) a search and returns the new list; at most 50 are kept. */
export function saveSearch(storage: Pick<Storage, 'getItem' | 'setItem'>, name: string, query: Record<string, string>): SavedSearch[] {
  const clean = name.trim().slice(0, MAX_NAME);
  if (!clean) return loadSavedSearches(storage);
  const list = [...loadSavedSearches(storage).filter((s) => s.name !== clean), { name: clean, query }].slice(-MAX);
  storage.setItem(KEY, JSON.stringify(list));
  return loadSavedSearches(storage);
}

export function removeSearch(storage: Pick<Storage, 'getItem' | 'setItem'>, name: string): SavedSearch[] {
  storage.setItem(KEY, JSON.stringify(loadSavedSearches(storage).filter((s) => s.name !== name)));
  return loadSavedSearches(storage);
}
