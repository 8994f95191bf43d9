import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('agent versions contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('records reads per product, keeping the last good version through a failed read', async () => {
    store = await openFreshStore(kind);
    const failedFirst = await store.agentVersions.record({ product: 'ssh-monitor', latest_version: null, commit: null, checked_ms: 1, error: 'unreachable', error_reason: 'unreachable' });
    expect(failedFirst).toEqual({ product: 'ssh-monitor', latest_version: null, commit: null, checked_ms: 1, error: 'unreachable', error_reason: 'unreachable' });
    await store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: 'abc', checked_ms: 2, error: null, error_reason: null });
    const failedLater = await store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: null, commit: null, checked_ms: 3, error: 'auth failed', error_reason: 'auth_failed' });
    expect(failedLater).toEqual({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: 'abc', checked_ms: 3, error: 'auth failed', error_reason: 'auth_failed' });
    await store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: '2.1.9-SAC', commit: 'def', checked_ms: 4, error: null, error_reason: null });
    expect(await store.agentVersions.list()).toEqual([
      { product: 'rdp-login-monitor', latest_version: '2.1.9-SAC', commit: 'def', checked_ms: 4, error: null, error_reason: null },
      { product: 'ssh-monitor', latest_version: null, commit: null, checked_ms: 1, error: 'unreachable', error_reason: 'unreachable' },
    ]);
  });
});
