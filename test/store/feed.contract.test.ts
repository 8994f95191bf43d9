import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { loadConfig } from '../../daemon/src/config.js';
import { openStore } from '../../daemon/src/store/index.js';
import { openFreshStore, storeEnv, STORE_KINDS, tempDir } from '../helpers/stores.js';

describe.each(STORE_KINDS)('cluster feed contract: %s', (kind) => {
  let stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  if (kind === 'sqlite') {
    it('has no feed: the one daemon of a SQLite store has its in-process bus', async () => {
      stores.push(await openFreshStore(kind));
      expect(stores[0].feed).toBeNull();
    });
    return;
  }

  it('gives every batch one id, keeps each writer in order, and reads after a cursor', async () => {
    const store = await openFreshStore(kind);
    stores.push(store);
    const feed = store.feed!;
    expect(await feed.newest()).toBe(0);
    // Two writers racing for the same ids, each appending one batch at a time.
    const write = async (origin: string) => {
      const ids: number[] = [];
      for (let b = 0; b < 10; b++) {
        const batch = Array.from({ length: 5 }, (_, i) => ({ type: 'x', data: { origin, n: b * 5 + i, 'dotted.key': { $odd: true } } }));
        ids.push(await feed.append(origin, batch, 1000 + b));
      }
      return ids;
    };
    const [a, b] = await Promise.all([write('A'), write('B')]);
    expect(new Set([...a, ...b]).size).toBe(20);
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(b).toEqual([...b].sort((x, y) => x - y));
    const all = await feed.after(0, 100);
    expect(all.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    for (const origin of ['A', 'B']) {
      const mine = all.filter((r) => r.origin === origin).flatMap((r) => r.messages.map((m) => (m as { data: { n: number } }).data.n));
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
    expect(all[0].messages[0]).toMatchObject({ data: { 'dotted.key': { $odd: true } } });
    expect((await feed.after(18, 10)).map((r) => r.id)).toEqual([19, 20]);
    expect(await feed.newest()).toBe(20);
  });

  it('prunes by age but keeps the newest batch, and has one epoch per store', async () => {
    const store = await openFreshStore(kind);
    stores.push(store);
    const feed = store.feed!;
    await feed.append('A', [{ n: 1 }], 1000);
    await feed.append('A', [{ n: 2 }], 1000);
    await feed.append('A', [{ n: 3 }], 5000);
    expect(await feed.prune(6000)).toBe(2);
    expect((await feed.after(0, 10)).map((r) => r.id)).toEqual([3]);
    // Ids continue after pruning, never reused.
    expect(await feed.append('B', [{ n: 4 }], 7000)).toBe(4);
    const epochs = await Promise.all([feed.epoch(), feed.epoch()]);
    expect(epochs[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(epochs[1]).toBe(epochs[0]);
    const other = await openFreshStore(kind);
    stores.push(other);
    expect(await other.feed!.epoch()).not.toBe(epochs[0]);
  });

  it('gives an append after others appended and pruned an id above the newest, never a pruned one', async () => {
    // Two daemons on one database: each store handle is one daemon's.
    const result = loadConfig(storeEnv(kind, tempDir()));
    if (!result.ok) throw new Error(result.problems.join('; '));
    const [a, b] = [await openStore(result.config.store), await openStore(result.config.store)];
    stores.push(a, b);
    expect(await a.feed!.append('A', [{ n: 1 }], 1000)).toBe(1);
    expect(await b.feed!.append('B', [{ n: 2 }], 1000)).toBe(2);
    expect(await b.feed!.append('B', [{ n: 3 }], 5000)).toBe(3);
    expect(await b.feed!.prune(2000)).toBe(2);
    // A's next append lands after what every reader has seen (id 3), not at a freed id below it.
    expect(await a.feed!.append('A', [{ n: 4 }], 6000)).toBe(4);
    expect((await b.feed!.after(3, 10)).map((r) => r.id)).toEqual([4]);
  });
});
