import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('Telegram link codes and links contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('consumes a link code once and keeps one link per user and per Telegram account', async () => {
    store = await openFreshStore(kind);
    await store.telegram.putLinkCode('h1', 'u1', 5000);
    const consumed = await Promise.all(Array.from({ length: 8 }, () => store.telegram.consumeLinkCode('h1', 1000)));
    expect(consumed.filter((c) => c === 'u1')).toHaveLength(1);
    await store.telegram.putLinkCode('h2', 'u2', 5000);
    expect(await store.telegram.consumeLinkCode('h2', 5000)).toBeNull();
    await store.telegram.link({ user_id: 'u1', telegram_user_id: '42', telegram_username: 'anna', linked_ms: 1 });
    await store.telegram.link({ user_id: 'u2', telegram_user_id: '42', telegram_username: 'anna', linked_ms: 2 });
    expect(await store.telegram.byUser('u1')).toBeNull();
    expect((await store.telegram.byTelegramUser('42'))?.user_id).toBe('u2');
    expect(await store.telegram.unlink('u2')).toBe(true);
    expect(await store.telegram.unlink('u2')).toBe(false);
  });
});
