import { describe, expect, it } from 'vitest';
import { loadSavedSearches, removeSearch, saveSearch } from './saved-searches';

function memory(initial?: string) {
  const data = new Map<string, string>(initial === undefined ? [] : [['sac.savedSearches', initial]]);
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
}

describe('saved searches', () => {
  it('saves by name (replacing the same name), lists sorted, removes', () => {
    const s = memory();
    saveSearch(s, ' Night failures ', { type: 'rdp.login.failed', range: '24h' });
    saveSearch(s, 'Admin logins', { user: 'administrator' });
    expect(saveSearch(s, 'Night failures', { type: 'ssh.login.failed' })).toEqual([
      { name: 'Admin logins', query: { user: 'administrator' } },
      { name: 'Night failures', query: { type: 'ssh.login.failed' } },
    ]);
    expect(removeSearch(s, 'Admin logins').map((x) => x.name)).toEqual(['Night failures']);
    expect(saveSearch(s, '   ', { q: 'x' })).toHaveLength(1);
  });

  it('ignores broken or foreign storage content', () => {
    expect(loadSavedSearches(memory('not json'))).toEqual([]);
    expect(loadSavedSearches(memory('{"name":"x"}'))).toEqual([]);
    expect(loadSavedSearches(memory('[{"name":"ok","query":{"q":"a"}},{"name":"bad","query":{"q":1}},null]'))).toEqual([{ name: 'ok', query: { q: 'a' } }]);
  });
});
