import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Writable } from 'node:stream';
import { buildCommittedEvent } from '../../../test/helpers/facts.js';
import { Facts } from '../facts.js';
import type { CommittedEvent } from '../store/index.js';
import { subscribeAgentUpdates } from './agent-updates.service.js';

/** Waits for a condition that other promises make true. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}

describe('agent updates react to committed events', () => {
  it('hands over the events that may move a job, hidden types included, one after the other in commit order; a failure is logged and the rest go on', async () => {
    const facts = new Facts(() => undefined);
    const logged: Record<string, unknown>[] = [];
    const logger = pino({ level: 'error' }, new Writable({ write: (chunk: Buffer, _e, done) => done(void logged.push(JSON.parse(chunk.toString()) as Record<string, unknown>)) }));
    const seen: string[] = [];
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    subscribeAgentUpdates(
      facts,
      {
        onEvent: async (c: CommittedEvent) => {
          most = Math.max(most, ++running);
          seen.push(c.event.title);
          if (c.event.title === 'started') await gate;
          running--;
          if (c.event.title === 'broken') throw new Error('store away');
        },
      },
      logger,
    );
    const agent = { category: 'agent' as const, severity: 'info' as const };
    await facts.publish(
      [
        {
          type: 'events.committed',
          events: [
            buildCommittedEvent({ ...agent, type: 'agent.update.started', title: 'started' }),
            buildCommittedEvent({ type: 'rdp.login.failed', severity: 'high', title: 'not for updates' }),
            buildCommittedEvent({ ...agent, type: 'agent.update.success', title: 'success' }),
          ],
        },
        { type: 'host.status_changed', host_id: 'h1', hostname: 'RDS01', status: 'online' },
      ],
      'ingest',
    );
    // The publisher does not wait for job moves.
    expect(seen).toEqual(['started']);
    await facts.publish([{ type: 'events.committed', events: [buildCommittedEvent({ ...agent, type: 'agent.heartbeat', title: 'broken' }), buildCommittedEvent({ ...agent, type: 'agent.lifecycle', title: 'lifecycle' })] }], 'ingest');
    release();
    await until(() => seen.length === 4);
    expect(seen).toEqual(['started', 'success', 'broken', 'lifecycle']);
    expect(most).toBe(1);
    await until(() => logged.length === 1);
    expect(logged[0]).toMatchObject({ msg: 'agent update job not moved', event_id: expect.any(String), err: expect.anything() });
  });
});
