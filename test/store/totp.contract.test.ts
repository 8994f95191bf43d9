import { afterEach, describe, expect, it } from 'vitest';
import type { Store, TotpRecord } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function totp(userId: string, overrides: Partial<TotpRecord> = {}): TotpRecord {
  return { user_id: userId, secret: 'sealed', enabled: false, last_step: 0, recovery_hashes: [], created_ms: 1, enabled_ms: null, ...overrides };
}

describe.each(STORE_KINDS)('TOTP factors contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('accepts a TOTP step only once and later steps only, even under parallel use; recovery codes are single-use', async () => {
    store = await openFreshStore(kind);
    expect(await store.totp.putPending(totp('u1'))).toBe(true);
    expect(await store.totp.useStep('u1', 5)).toBe(false); // not enabled yet
    expect(await store.totp.enable('u1', 100, ['r1', 'r2'], 7)).toBe(true);
    expect(await store.totp.enable('u1', 101, [], 8)).toBe(false);
    expect(await store.totp.putPending(totp('u1'))).toBe(false);
    const uses = await Promise.all(Array.from({ length: 8 }, () => store.totp.useStep('u1', 101)));
    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await store.totp.useStep('u1', 100)).toBe(false);
    const recoveries = await Promise.all(Array.from({ length: 6 }, () => store.totp.useRecoveryCode('u1', 'r1')));
    expect(recoveries.filter(Boolean)).toHaveLength(1);
    expect((await store.totp.get('u1'))).toMatchObject({ enabled: true, last_step: 101, recovery_hashes: ['r2'], enabled_ms: 7 });
    expect(await store.totp.remove('u1')).toBe(true);
    expect(await store.totp.get('u1')).toBeNull();
  });
});
