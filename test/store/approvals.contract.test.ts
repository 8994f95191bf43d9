import { describe, expect, it } from 'vitest';
import { type ApprovalRecord } from '../../daemon/src/store/index.js';
import { daemonStoresPerTest, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');

function pending(id: string): ApprovalRecord {
  return {
    id,
    action: 'session_logoff',
    request: { kind: 'host_logoff', host_id: 'h-1', session_id: 2 },
    summary: 'Log off session 2 on RDS01',
    host_ids: ['h-1'],
    hostnames: ['RDS01'],
    reason: 'left open overnight',
    requested_by_id: 'u-anna',
    requested_by: 'anna',
    requested_ms: T0,
    expires_ms: T0 + 30 * 60_000,
    state: 'pending',
    decided_by_id: null,
    decided_by: null,
    decided_ms: null,
    note: null,
    result: null,
  };
}

describe.each(STORE_KINDS)('two-person approval decisions with several daemons on %s', (kind) => {
  const daemons = daemonStoresPerTest(kind);

  it('of approvals and denials of one request made at once (by three daemons on MongoDB), exactly one wins and is what is stored', async () => {
    const { on } = await daemons.open(3);
    for (let round = 0; round < 5; round++) {
      const id = `apr-${round}`;
      await on(0).approvals.insert(pending(id));
      const decisions = Array.from({ length: 12 }, (_, i) => ({
        state: i % 2 ? ('denied' as const) : ('approved' as const),
        decided_by_id: `u-${i}`,
        decided_by: `user${i}`,
        decided_ms: T0 + 1000 + i,
        note: null,
      }));
      const won = await Promise.all(decisions.map((d, i) => on(i).approvals.decide(id, d)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const winner = decisions[won.indexOf(true)];
      expect(await on(1).approvals.byId(id)).toMatchObject({ state: winner.state, decided_by: winner.decided_by });
    }
  });
});
