import { describe, expect, it } from 'vitest';
import { type AgentUpdateJob } from '../../daemon/src/store/index.js';
import { daemonStoresPerTest, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');

function job(id: string, hostId: string): AgentUpdateJob {
  return {
    id,
    host_id: hostId,
    product: 'rdp-login-monitor',
    from_version: '2.1.7-SAC',
    target_version: '2.1.8-SAC',
    target_commit: 'c0ffee',
    state: 'pending',
    path: 'agent',
    created_ms: T0,
    updated_ms: T0,
    offered_ms: null,
    requested_by: 'admin',
    output: null,
  };
}

describe.each(STORE_KINDS)('agent update jobs with several daemons on %s', (kind) => {
  const daemons = daemonStoresPerTest(kind);

  it('gives a host one active job however many daemons create one at once, and one claim of a job wins', async () => {
    const { on } = await daemons.open(3);
    for (let round = 0; round < 4; round++) {
      const host = `h-${round}`;
      const outcomes = await Promise.all(Array.from({ length: 9 }, (_, i) => on(i).agentUpdates.insertJob(job(`j-${round}-${i}`, host))));
      expect(outcomes.filter((o) => o.status === 'inserted')).toHaveLength(1);
      const active = outcomes.find((o) => o.status === 'inserted')!.job;
      expect(new Set(outcomes.map((o) => o.job.id))).toEqual(new Set([active.id]));
      // A push claiming it and an abort cancelling it at once, from every daemon: one wins.
      const claims = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          i % 2
            ? on(i).agentUpdates.transition(active.id, ['pending'], { state: 'failed', updated_ms: T0 + i, output: 'Cancelled' }, { unoffered: true })
            : on(i).agentUpdates.transition(active.id, ['pending', 'started'], { state: 'fallback', path: 'ssh', updated_ms: T0 + i }),
        ),
      );
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
    }
  });
});
