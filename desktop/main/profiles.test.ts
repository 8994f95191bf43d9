import { describe, expect, it } from 'vitest';
import { parseProfileFile, ProfileStore, type TextStorage } from './profiles.js';

function memory(initial: string | null = null): TextStorage & { text: string | null } {
  const s = {
    text: initial,
    read: () => s.text,
    write: (t: string) => {
      s.text = t;
    },
  };
  return s;
}

function store(initial: string | null = null) {
  let n = 0;
  const storage = memory(initial);
  return { storage, profiles: new ProfileStore(storage, () => `p${++n}`) };
}

describe('ProfileStore', () => {
  it('saves normalised profiles, persists them, and survives a restart', () => {
    const { storage, profiles } = store();
    const a = profiles.save({ name: ' Main SOC ', url: 'https://sac.example.org/' });
    expect(a).toEqual({ id: 'p1', name: 'Main SOC', url: 'https://sac.example.org' });
    profiles.save({ name: '', url: 'https://10.0.0.5:8443/sac' });
    const reopened = new ProfileStore(storage);
    expect(reopened.list().map((p) => [p.name, p.url])).toEqual([
      ['Main SOC', 'https://sac.example.org'],
      ['10.0.0.5:8443', 'https://10.0.0.5:8443/sac'],
    ]);
    expect(reopened.active()).toBeNull();
  });

  it('updates by id, and saving a known URL again updates that profile instead of duplicating it', () => {
    const { profiles } = store();
    const a = profiles.save({ name: 'A', url: 'https://a.example' });
    profiles.save({ name: 'A again', url: 'https://a.example/' });
    expect(profiles.list()).toEqual([{ id: a.id, name: 'A again', url: 'https://a.example' }]);
    profiles.save({ id: a.id, name: 'A moved', url: 'https://b.example' });
    expect(profiles.list()).toEqual([{ id: a.id, name: 'A moved', url: 'https://b.example' }]);
    expect(() => profiles.save({ id: 'nope', name: 'x', url: 'https://c.example' })).toThrow('No such connection');
  });

  it('rejects a bad URL with the validation reason and stores nothing', () => {
    const { storage, profiles } = store();
    expect(() => profiles.save({ name: 'x', url: 'ftp://x' })).toThrow(/http/);
    expect(storage.text).toBeNull();
  });

  it('activates known profiles only and forgets the active one when it is removed', () => {
    const { profiles } = store();
    const a = profiles.save({ name: 'A', url: 'https://a.example' });
    const b = profiles.save({ name: 'B', url: 'https://b.example' });
    expect(() => profiles.activate('zzz')).toThrow('No such connection');
    profiles.activate(b.id);
    expect(profiles.active()?.name).toBe('B');
    profiles.remove(a.id);
    expect(profiles.active()?.name).toBe('B');
    profiles.remove(b.id);
    expect(profiles.active()).toBeNull();
    expect(profiles.list()).toEqual([]);
  });

  it('reads a damaged or hand-edited file leniently', () => {
    expect(parseProfileFile('{not json')).toEqual({ version: 1, active: null, profiles: [] });
    const file = parseProfileFile(
      JSON.stringify({ active: 'x', profiles: [{ id: 'x', name: 'bad', url: 'javascript:alert(1)' }, { id: 'y', name: 'ok', url: 'https://ok.example' }, 'junk'] }),
    );
    expect(file).toEqual({ version: 1, active: null, profiles: [{ id: 'y', name: 'ok', url: 'https://ok.example' }] });
  });
});
