import { describe, expect, it } from 'vitest';
import { serviceBed } from '../../../test/helpers/services.js';
import { ApiKeyService } from './api-keys.service.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');

describe('API key last use, written behind a timer on a fake clock', () => {
  const bed = serviceBed(T0);

  it('writes the uses of a key five seconds after the first, in one store call, then once a minute at most', async () => {
    const { store, clock } = await bed.start();
    const keys = new ApiKeyService(store.apiKeys, clock);
    const { key, info } = await keys.create('agents');
    const lastUsed = async () => (await store.apiKeys.list()).find((k) => k.id === info.id)!.last_used_ms;

    expect(await keys.verify(key)).not.toBeNull();
    await clock.advanceAsync(4_999);
    expect(await lastUsed()).toBeNull();
    expect(clock.pending()).toBe(1);
    await clock.advanceAsync(1);
    expect(await lastUsed()).toBe(T0);
    expect(clock.pending()).toBe(0);

    // Within the minute a use is not news: no timer, no write.
    await keys.verify(key);
    expect(clock.pending()).toBe(0);
    await clock.advanceAsync(60_000);
    await keys.verify(key);
    await clock.advanceAsync(5_000);
    expect(await lastUsed()).toBe(T0 + 65_000);
  });
});
