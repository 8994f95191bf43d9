import { describe, expect, it } from 'vitest';
import type { BusMessage } from '../bus.js';
import { followClusterChanges } from './cluster.changes.js';
import type { ClusterListener } from './feed-channel.js';

describe('following the other daemons\' cache changes', () => {
  it('drops the copies another daemon changed, and leaves this daemon\'s own changes and stream messages alone', () => {
    let listener: ClusterListener | null = null;
    const seen: string[] = [];
    followClusterChanges(
      { subscribe: (l) => ((listener = l), () => undefined) },
      { settings: (c) => seen.push(`settings:${c}`), apiKeys: () => seen.push('api_keys'), user: (id) => seen.push(`user:${id}`) },
    );
    const deliver = (message: BusMessage, fromHere = false) => listener!(message, 1, fromHere);
    deliver({ type: 'cluster.changed', data: { scope: 'settings', category: 'hidden_types' } });
    deliver({ type: 'cluster.changed', data: { scope: 'api_keys' } });
    deliver({ type: 'cluster.changed', data: { scope: 'user', user_id: 'u1' } });
    deliver({ type: 'cluster.changed', data: { scope: 'user', user_id: 'mine' } }, true);
    deliver({ type: 'host.status_changed', data: { host_id: 'h1', hostname: 'RDS01', status: 'stale' } });
    expect(seen).toEqual(['settings:hidden_types', 'api_keys', 'user:u1']);
  });
});
