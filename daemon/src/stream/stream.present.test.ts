import { describe, expect, it } from 'vitest';
import { buildCommittedEvent, buildProblem as problem } from '../../../test/helpers/facts.js';
import type { BusMessage } from '../bus.js';
import { Facts, type DomainFact } from '../facts.js';
import { presentFacts, subscribeStream, type StreamPresentation } from './stream.present.js';

const T = Date.parse('2026-06-03T00:00:00.000Z');
const committed = (type: string, severity: 'info' | 'warning' | 'high') => buildCommittedEvent({ type, severity, title: type }, { received_ms: T });
/** Waits for a condition that other promises make true. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}

const shown: StreamPresentation = { hiddenTypes: [], severityOverrides: {} };

describe('the stream presentation of facts', () => {
  it('shows committed events as the lists do: hidden types left out, severities as overridden', () => {
    const facts: DomainFact[] = [
      { type: 'events.committed', events: [committed('agent.heartbeat', 'info'), committed('rdp.login.failed', 'warning'), committed('ssh.login.failed', 'info')] },
    ];
    const messages = presentFacts(facts, { hiddenTypes: ['agent.heartbeat'], severityOverrides: { ssh: 'high' } });
    expect(messages.map((m) => m.type === 'event.ingested' && [m.data.type, m.data.severity, m.data.host_id, m.data.received_at])).toEqual([
      ['rdp.login.failed', 'warning', 'h1', new Date(T).toISOString()],
      ['ssh.login.failed', 'high', 'h1', new Date(T).toISOString()],
    ]);
    expect(presentFacts(facts, shown).map((m) => m.type === 'event.ingested' && m.data.type)).toEqual(['agent.heartbeat', 'rdp.login.failed', 'ssh.login.failed']);
  });

  it('shows problem changes (a grown one as updated) and host status, and never a sign-in lock', () => {
    const facts: DomainFact[] = [
      { type: 'problem.opened', problem: problem() },
      { type: 'problem.grown', problem: problem({ count: 3 }) },
      { type: 'problem.assigned', problem: problem({ assignee_id: 'u1', assignee: 'ann' }) },
      { type: 'host.status_changed', host_id: 'h1', hostname: 'RDS01', status: 'stale' },
      { type: 'auth.login_locked', username: 'x', ip: undefined, locked_until: new Date(T).toISOString(), attempts: 3 },
    ];
    // Problems are shown whatever the hidden types: hidden types never open one, and an operator's change is news.
    const messages = presentFacts(facts, { hiddenTypes: ['rdp'], severityOverrides: {} });
    expect(messages.map((m) => m.type)).toEqual(['problem.opened', 'problem.updated', 'problem.assigned', 'host.status_changed']);
    expect(messages[1].data).toMatchObject({ id: 'p1', count: 3, hostname: 'RDS01' });
    expect(messages[2].data).toMatchObject({ assignee: 'ann' });
  });

  it('publishes in the order the facts came, however long reading the settings takes, and the publisher waits for it', async () => {
    const facts = new Facts(() => undefined);
    const published: BusMessage[] = [];
    const reads: ((p: StreamPresentation) => void)[] = [];
    subscribeStream(facts, { publish: (m) => published.push(m) }, () => new Promise((resolve) => reads.push(resolve)));
    let firstDone = false;
    const first = facts.publish([{ type: 'problem.opened', problem: problem({ id: 'first' }) }], 'ingest').then(() => (firstDone = true));
    const second = facts.publish([{ type: 'problem.opened', problem: problem({ id: 'second' }) }], 'service');
    await Promise.resolve();
    expect(reads).toHaveLength(1);
    expect(firstDone).toBe(false);
    reads[0](shown);
    await first;
    await until(() => reads.length === 2);
    reads[1](shown);
    await second;
    expect(published.map((m) => m.type === 'problem.opened' && m.data.id)).toEqual(['first', 'second']);
  });

  it('keeps presenting after a failed settings read', async () => {
    const facts = new Facts(() => undefined);
    const published: BusMessage[] = [];
    let fail = true;
    subscribeStream(facts, { publish: (m) => published.push(m) }, async () => {
      if (fail) throw new Error('store away');
      return shown;
    });
    await facts.publish([{ type: 'problem.opened', problem: problem({ id: 'lost' }) }], 'service');
    fail = false;
    await facts.publish([{ type: 'problem.opened', problem: problem({ id: 'kept' }) }], 'service');
    expect(published.map((m) => m.type === 'problem.opened' && m.data.id)).toEqual(['kept']);
  });
});
