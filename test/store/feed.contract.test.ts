import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

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

  it('gives every message one position, keeps each writer in order, and reads after a cursor', async () => {
    const store = await openFreshStore(kind);
    stores.push(store);
    const feed = store.feed!;
    expect(await feed.newest()).toBe(0);
    // Two writers racing for the same positions, each appending in order one batch at a time.
    const write = async (origin: string) => {
      const seqs: number[] = [];
      for (let b = 0; b < 10; b++) {
        const batch = Array.from({ length: 5 }, (_, i) => ({ type: 'x', data: { origin, n: b * 5 + i, 'dotted.key': { $odd: true } } }));
        seqs.push(...(await feed.append(origin, batch, 1000 + b)));
      }
      return seqs;
    };
    const [a, b] = await Promise.all([write('A'), write('B')]);
    expect(new Set([...a, ...b]).size).toBe(100);
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(b).toEqual([...b].sort((x, y) => x - y));
    const all = await feed.after(0, 1000);
    expect(all.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    for (const origin of ['A', 'B']) {
      const mine = all.filter((r) => r.origin === origin).map((r) => (r.message as { data: { n: number } }).data.n);
      expect(mine).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
    expect(all[0].message).toMatchObject({ data: { 'dotted.key': { $odd: true } } });
    expect((await feed.after(98, 10)).map((r) => r.seq)).toEqual([99, 100]);
    expect(await feed.newest()).toBe(100);
  });

  it('prunes by age but keeps the newest position, and has one epoch per store', async () => {
    const store = await openFreshStore(kind);
    stores.push(store);
    const feed = store.feed!;
    await feed.append('A', [{ n: 1 }, { n: 2 }], 1000);
    await feed.append('A', [{ n: 3 }], 5000);
    expect(await feed.prune(6000)).toBe(2);
    expect((await feed.after(0, 10)).map((r) => r.seq)).toEqual([3]);
    // Positions continue after pruning, never reused.
    expect(await feed.append('B', [{ n: 4 }], 7000)).toEqual([4]);
    const epochs = await Promise.all([feed.epoch(), feed.epoch()]);
    expect(epochs[0]).toMatch(/^[0-9a-f]{12}$/);
    expect(epochs[1]).toBe(epochs[0]);
    const other = await openFreshStore(kind);
    stores.push(other);
    expect(await other.feed!.epoch()).not.toBe(epochs[0]);
  });
});
