import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupRecord, Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function group(overrides: Partial<GroupRecord> = {}): GroupRecord {
  return {
    id: randomUUID(),
    name: 'Web',
    description: '',
    host_ids: ['h1'],
    rules: { host_patterns: ['web-*'], os_families: ['linux'], agent_products: [], cidrs: ['10.0.0.0/8'] },
    created_by: 'admin',
    created_ms: 1,
    updated_ms: 1,
    ...overrides,
  };
}

describe.each(STORE_KINDS)('host groups contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('stores, lists by name, replaces and removes groups; names are unique case-insensitively', async () => {
    store = await openFreshStore(kind);
    const web = group();
    const db = group({ name: 'databases', rules: { host_patterns: [], os_families: [], agent_products: ['ssh-monitor'], cidrs: [] } });
    expect(await store.groups.insert(web)).toBe(true);
    expect(await store.groups.insert(db)).toBe(true);
    expect(await store.groups.insert(group({ name: 'WEB' }))).toBe(false);
    expect(await store.groups.byId(web.id)).toEqual(web);
    expect((await store.groups.list()).map((g) => g.name)).toEqual(['databases', 'Web']);

    expect(await store.groups.replace({ ...db, name: 'web' })).toBe('duplicate');
    expect(await store.groups.replace({ ...db, name: 'DBs', host_ids: ['h2'], updated_ms: 2 })).toBe('ok');
    expect(await store.groups.byId(db.id)).toMatchObject({ name: 'DBs', host_ids: ['h2'], updated_ms: 2 });
    expect(await store.groups.replace(group({ name: 'ghost' }))).toBe('not_found');
    // Renaming to its own name in another case is no conflict.
    expect(await store.groups.replace({ ...web, name: 'WEB' })).toBe('ok');

    expect(await store.groups.remove(web.id)).toBe(true);
    expect(await store.groups.remove(web.id)).toBe(false);
    expect(await store.groups.byId(web.id)).toBeNull();
    expect(await store.groups.insert(group({ name: 'web' }))).toBe(true);
  });

  it('keeps a user’s group limit, replaces it and lifts it', async () => {
    store = await openFreshStore(kind);
    expect(await store.groups.userLimit('u1')).toBeNull();
    await store.groups.setUserLimit('u1', ['g1', 'g2']);
    await store.groups.setUserLimit('u1', ['g3']);
    await store.groups.setUserLimit('u2', []);
    expect(await store.groups.userLimit('u1')).toEqual(['g3']);
    expect(await store.groups.userLimit('u2')).toEqual([]);
    await store.groups.setUserLimit('u1', null);
    expect(await store.groups.userLimit('u1')).toBeNull();
    expect(await store.groups.userLimit('u2')).toEqual([]);
  });
});
