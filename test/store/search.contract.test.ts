import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { NewEvent, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00Z');

function newEvent(i: number, title: string, summary = 'nothing to see'): NewEvent {
  const parsed = parseEvent(buildEvent({ title, summary, occurred_at: new Date(T0 + i * 1000).toISOString() }));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const event = parsed.event;
  return { event, host: hostObservation(event, T0), occurred_ms: T0 + i * 1000, received_ms: T0, actor_user: null, agent_version: '1' };
}

describe.each(STORE_KINDS)('free-text event search: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  const titles = async (q: string) => (await store.events.search({ q, hidden: [], limit: 50, budget_ms: 5000 })).map((e) => e.event.title);

  it('finds any substring of title or summary, case-insensitive, also Cyrillic, quotes and short text', async () => {
    store = await openFreshStore(kind);
    await store.events.insertBatch([
      newEvent(1, 'Неудачный ВХОД пользователя', 'от 203.0.113.45'),
      newEvent(2, 'SSH login FAILED for root', 'from 198.51.100.7'),
      newEvent(3, 'quoted "admin" account', 'share C$ accessed'),
      newEvent(4, 'heartbeat'),
    ]);
    expect(await titles('вход')).toEqual(['Неудачный ВХОД пользователя']);
    expect(await titles('ogin fail')).toEqual(['SSH login FAILED for root']);
    expect(await titles('113.4')).toEqual(['Неудачный ВХОД пользователя']);
    expect(await titles('"admin"')).toEqual(['quoted "admin" account']);
    expect(await titles('C$')).toEqual(['quoted "admin" account']);
    expect(await titles('%')).toEqual([]);
    expect(await titles('no such text')).toEqual([]);
    expect((await titles('e')).length).toBe(3); // Latin e: the Cyrillic title has only е
  });

  it('stops a search that runs past its time budget with event/search_too_broad', async () => {
    store = await openFreshStore(kind);
    // Enough rows that a scan outlasts 1 ms by a wide margin on either store.
    const n = kind === 'sqlite' ? 10_000 : 2_000;
    for (let i = 0; i < n; i += 1000) {
      await store.events.insertBatch(Array.from({ length: 1000 }, (_, j) => newEvent(i + j, `event number ${i + j}`, 'x'.repeat(300))));
    }
    // Two characters: no trigram can answer it, so both stores scan.
    await expect(store.events.search({ q: 'zq', hidden: [], limit: 10, budget_ms: 1 })).rejects.toMatchObject({ code: 'event/search_too_broad' });
    expect(await store.events.search({ q: 'zq', hidden: [], limit: 10, budget_ms: 60_000 })).toEqual([]);
    if (kind === 'sqlite') {
      // Three characters or more: the trigram index answers without reading the rows, so even a
      // 1 ms budget holds (the JavaScript scan this replaced took far longer over these rows).
      expect(await store.events.search({ q: 'zqx', hidden: [], limit: 10, budget_ms: 1 })).toEqual([]);
      expect((await store.events.search({ q: 'number 9999', hidden: [], limit: 10, budget_ms: 1000 })).map((e) => e.event.title)).toEqual(['event number 9999']);
    }
  });
});
