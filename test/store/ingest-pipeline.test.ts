import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { DEFAULT_CROSS_HOST_RULES, problemFingerprint, problemKey, type CorrelationSettings } from '../../daemon/src/correlation/index.js';
import { createIngestPipeline, type BatchContext } from '../../daemon/src/ingest/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { EventNotifyPlan } from '../../daemon/src/notify/index.js';
import type { NewEvent, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const correlation: CorrelationSettings = {
  windowMinutes: 60,
  severityOverrides: {},
  hiddenTypes: [],
  staleMinutes: 300,
  staleMinutesByProduct: {},
  silenceCooldownMinutes: 720,
  crossHost: DEFAULT_CROSS_HOST_RULES,
  typeProblems: {},
  adminUsers: new Set(),
};
const plan: EventNotifyPlan = {
  policy: { minSeverity: 'high', enabledChannels: ['webhook'], lifecycleChannels: [], hiddenTypes: [], severityOverrides: {}, language: 'en' },
  targets: { webhook: [null] },
  maxAttempts: 3,
  windows: [],
};
const context = (): BatchContext => ({ now_ms: T0, correlation, notify: plan });

function items(overrides: Parameters<typeof buildEvent>[0][]): NewEvent[] {
  return overrides.map((o) => {
    const parsed = parseEvent(buildEvent(o));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const event = parsed.event;
    return { event, host: hostObservation(event, T0), occurred_ms: Date.parse(event.occurred_at), received_ms: T0, actor_user: actorUser(event), agent_version: event.source.product_version };
  });
}

describe.each(STORE_KINDS)('the ingest pipeline on %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('writes the notifications of a batch\'s events and of the problems it opened with the batch, and returns its facts as effects', async () => {
    store = await openFreshStore(kind);
    const pipeline = createIngestPipeline(store);
    const at = new Date(T0).toISOString();
    const { outcomes, effects } = await pipeline.commit(
      items([
        { severity: 'high', occurred_at: at },
        { severity: 'info', occurred_at: at },
      ]),
      context,
    );
    expect(outcomes.map((o) => o.status)).toEqual(['inserted', 'inserted']);
    expect(effects.facts.map((f) => f.type)).toEqual(['events.committed', 'problem.opened']);
    const opened = effects.facts.find((f) => f.type === 'problem.opened')!;
    // Recorded before the batch resolved: no listener is involved.
    const rows = await store.outbox.list({ limit: 10 });
    expect(rows.map((r) => [r.topic, r.channel]).sort()).toEqual([
      ['event', 'webhook'],
      ['problem.opened', 'webhook'],
    ]);
    expect(rows.find((r) => r.topic === 'problem.opened')!.ref).toBe((opened as { problem: { id: string } }).problem.id);
    expect(effects.notificationsRecorded).toBe(2);
    expect(effects.logs).toContainEqual(expect.objectContaining({ level: 'info', msg: 'problem opened' }));
    await pipeline.close();
  });

  it('resolves a host\'s silence problem on its heartbeat and notifies the channels that carried the opening', async () => {
    store = await openFreshStore(kind);
    const pipeline = createIngestPipeline(store);
    const first = await pipeline.commit(items([{ severity: 'info', type: 'rdp.login.success' }]), () => ({ ...context(), notify: null }));
    const hostId = (first.outcomes[0] as { host_id: string }).host_id;
    const key = problemKey(hostId, 'host.silence', 'host_silence');
    const silence = (await store.problems.openSilence({ key, fingerprint: problemFingerprint(key), host_id: hostId, hostname: 'RDS01', title: 'silent', now_ms: T0 }))!;
    await store.outbox.insertMany([
      { id: 'o1', topic: 'problem.opened', channel: 'webhook', target: null, ref: silence.id, content: { kind: 'event', event: {} } as never, status: 'sent', attempts: 1, max_attempts: 3, next_attempt_ms: T0, lease_until_ms: null, created_ms: T0, updated_ms: T0, sent_ms: T0, last_error: null, history: [] },
    ]);
    const { effects } = await pipeline.commit(items([{ type: 'agent.heartbeat', category: 'agent', severity: 'info', title: 'heartbeat', details: {} }]), context);
    expect(effects.facts.map((f) => f.type)).toEqual(['events.committed', 'host.status_changed', 'problem.resolved']);
    expect((await store.problems.byId(silence.id))!.status).toBe('resolved');
    const resolved = await store.outbox.list({ topic: 'problem.resolved', limit: 10 });
    expect(resolved.map((r) => [r.ref, r.channel])).toEqual([[silence.id, 'webhook']]);
    await pipeline.close();
  });
});
