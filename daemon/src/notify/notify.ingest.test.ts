import { describe, expect, it } from 'vitest';
import type { NotifyChannel, ProblemFacts } from '../../../shared/src/index.js';
import { buildCommittedEvent, buildProblem } from '../../../test/helpers/facts.js';
import type { DomainFact } from '../facts.js';
import type { InForceWindow } from '../maintenance/index.js';
import { factNotificationRows, type EventNotifyPlan } from './notify.ingest.js';

const NOW = Date.parse('2026-06-03T00:00:00.000Z');
const plan = (windows: InForceWindow[] = []): EventNotifyPlan => ({
  policy: { minSeverity: 'high', enabledChannels: ['webhook', 'telegram'], lifecycleChannels: [], hiddenTypes: ['agent.heartbeat'], severityOverrides: {}, language: 'en' },
  targets: { webhook: [null], telegram: ['chat-1', 'chat-2'] },
  maxAttempts: 3,
  windows,
});
const window = (over: Partial<InForceWindow>): InForceWindow => ({
  id: 'w1',
  hosts: [],
  group_ids: [],
  groups: [],
  type_prefixes: [],
  rules: [],
  starts_ms: NOW - 1000,
  ends_ms: NOW + 60_000,
  recurrence: null,
  reason: 'patching',
  created_by: null,
  created_ms: NOW,
  updated_ms: NOW,
  ended_early_ms: null,
  ...over,
});
const FACTS: ProblemFacts = { addresses: [{ value: '203.0.113.7', count: 20 }], users: [{ value: 'root', count: 12 }], hosts: [{ value: 'RDS01', count: 20 }] };
const problemFacts = { facts: async (): Promise<ProblemFacts> => FACTS };
const noHosts = { byId: async () => null };
const noCarriers = { outbox: { carriers: async (): Promise<NotifyChannel[]> => [] }, problems: problemFacts, hosts: noHosts };
const summary = (rows: Awaited<ReturnType<typeof factNotificationRows>>) => rows.map((r) => [r.topic, r.channel, r.target, r.status]);

describe('the notification rows of facts (one builder: in the ingest commit and in the notifier)', () => {
  it('turns committed events the policy sends into one row per channel and target, hidden and low ones into none', async () => {
    const facts: DomainFact[] = [
      {
        type: 'events.committed',
        events: [
          buildCommittedEvent({ type: 'rdp.login.failed', severity: 'high' }),
          buildCommittedEvent({ type: 'rdp.login.failed', severity: 'warning' }),
          buildCommittedEvent({ type: 'agent.heartbeat', category: 'agent', severity: 'critical' }),
        ],
      },
    ];
    const rows = await factNotificationRows(facts, plan(), NOW, noCarriers);
    expect(summary(rows)).toEqual([
      ['event', 'telegram', 'chat-1', 'pending'],
      ['event', 'telegram', 'chat-2', 'pending'],
      ['event', 'webhook', null, 'pending'],
    ]);
    expect(rows[0].content).toMatchObject({ kind: 'event', event: { type: 'rdp.login.failed', hostname: 'RDS01' } });
  });

  it('notifies a problem opened (held back by a window in force) and resolved (to the channels that carried the opening); ignores the other facts', async () => {
    const opened = buildProblem({ id: 'p-open', severity: 'critical' });
    const resolved = buildProblem({ id: 'p-done', status: 'resolved', resolved_by: 'auto' });
    const asked: string[] = [];
    const carriers = {
      outbox: {
        carriers: async (topic: string, ref: string): Promise<NotifyChannel[]> => {
          asked.push(`${topic}:${ref}`);
          return ['telegram'];
        },
      },
      problems: problemFacts,
      hosts: noHosts,
    };
    const facts: DomainFact[] = [
      { type: 'problem.opened', problem: opened },
      { type: 'problem.grown', problem: opened },
      { type: 'problem.acknowledged', problem: opened },
      { type: 'problem.resolved', problem: resolved },
      { type: 'host.status_changed', host_id: 'h1', hostname: 'RDS01', status: 'stale' },
      { type: 'auth.login_locked', username: 'ann', ip: undefined, locked_until: new Date(NOW).toISOString(), attempts: 3 },
    ];
    const rows = await factNotificationRows(facts, plan([window({ hosts: ['rds01'] })]), NOW, carriers);
    expect(summary(rows)).toEqual([
      ['problem.opened', 'telegram', 'chat-1', 'suppressed'],
      ['problem.opened', 'telegram', 'chat-2', 'suppressed'],
      ['problem.opened', 'webhook', null, 'suppressed'],
      ['problem.resolved', 'telegram', 'chat-1', 'pending'],
      ['problem.resolved', 'telegram', 'chat-2', 'pending'],
    ]);
    expect(asked).toEqual(['problem.opened:p-done']);
    expect(rows[3].content).toMatchObject({ kind: 'problem', action: 'resolved', problem: { id: 'p-done', status: 'resolved', first_seen: new Date(resolved.first_seen_ms).toISOString() } });
    expect(rows[0].content).toMatchObject({ kind: 'problem', action: 'opened', problem: { id: 'p-open', facts: FACTS } });
  });
});
