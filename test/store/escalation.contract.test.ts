import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('escalation steps contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('records each escalation step once, also under 10 parallel claims', async () => {
    store = await openFreshStore(kind);
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.escalation.claimStep('p1', 1, 10)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.escalation.claimStep('p1', 2, 20)).toBe(true);
    expect(await store.escalation.claimStep('p2', 1, 20)).toBe(true);
    expect(Object.fromEntries(await store.escalation.lastSteps(['p1', 'p2', 'p3']))).toEqual({ p1: 2, p2: 1 });
    expect((await store.escalation.lastSteps([])).size).toBe(0);
  });
});
