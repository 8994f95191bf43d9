import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent, type Event } from '../../shared/src/index.js';
import { CorrelationService, DEFAULT_CROSS_HOST_RULES, type CorrelationEffects, type CorrelationSettings } from '../../daemon/src/correlation/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { CommittedEvent, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const settings: CorrelationSettings = {
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

/** Stores a batch the way ingest does and hands the committed events to the correlation listener. */
async function commit(store: Store, service: CorrelationService, overrides: Parameters<typeof buildEvent>[0][], with_ = settings): Promise<CorrelationEffects> {
  const items = overrides.map((o) => {
    const parsed = parseEvent(buildEvent(o));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const event: Event = parsed.event;
    return { event, host: hostObservation(event, T0), occurred_ms: Date.parse(event.occurred_at), received_ms: T0, actor_user: actorUser(event), agent_version: event.source.product_version };
  });
  const outcomes = await store.events.insertBatch(items);
  const committed: CommittedEvent[] = items.map((item, i) => {
    const o = outcomes[i];
    if (o.status !== 'inserted') throw new Error('not inserted');
    return { ...item, host_id: o.host_id };
  });
  return service.onCommitted(committed, with_, T0);
}

describe.each(STORE_KINDS)('correlation of one ingest batch on %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('correlates a whole batch: one problem per key and window, replays in the batch not counted, a flap pair inside the batch', async () => {
    store = await openFreshStore(kind);
    const service = new CorrelationService(store);
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    const gw = { host: { hostname: 'RDG09' }, category: 'network' as const, severity: 'info' as const, details: { user: 'CORP\\a', internal_ip: '10.1.1.1' } };
    const { facts, opened } = await commit(store, service, [
      { occurred_at: at(0) },
      { occurred_at: at(1000) },
      { occurred_at: at(1000) }, // replay of the previous one (same content, new event_id)
      { occurred_at: at(3 * 3_600_000) },
      { ...gw, type: 'rdg.connection.success', occurred_at: at(0) },
      { ...gw, type: 'rdg.connection.failed', occurred_at: at(4000) },
    ]);
    const problems = await store.problems.list({ hidden: [], limit: 10 });
    expect(problems.map((p) => [p.rule, p.count]).sort()).toEqual([
      ['rdg_flap', 1],
      ['severity', 1],
      ['severity', 2],
    ]);
    const main = problems.find((p) => p.rule === 'severity' && p.count === 2)!;
    expect((await store.problems.timeline(main.id, 10)).map((l) => l.counted).sort()).toEqual([false, true, true]);
    expect(facts.filter((f) => f.type === 'problem.opened')).toHaveLength(3);
    expect(opened).toHaveLength(3);
  });

  it('puts a batch’s events of types chosen `count` into each host’s one activity problem at info, and opens none for `never`', async () => {
    store = await openFreshStore(kind);
    const service = new CorrelationService(store);
    const at = (ms: number) => new Date(T0 + ms).toISOString();
    const choices = { ...settings, typeProblems: { 'rdp.login': 'count', 'rdp.login.success': 'never', 'rdp.shadow': 'never' } as const, adminUsers: new Set(['deploy']) };
    const { facts } = await commit(
      store,
      service,
      [
        { host: { hostname: 'CNT01' }, occurred_at: at(0) },
        { host: { hostname: 'CNT01' }, occurred_at: at(0) }, // replay: linked, not counted
        { host: { hostname: 'CNT01' }, occurred_at: at(5 * 3_600_000), severity: 'high' },
        { host: { hostname: 'CNT02' }, occurred_at: at(0) },
        { host: { hostname: 'CNT02' }, type: 'rdp.login.success', severity: 'high', occurred_at: at(0), details: { ip_address: '192.0.2.1' } },
        { host: { hostname: 'CNT02' }, type: 'rdp.shadow.control.started', occurred_at: at(0), details: { shadower_user: 'mallory' } },
        { host: { hostname: 'CNT02' }, type: 'privilege.sudo.command', occurred_at: at(0), details: { user: 'deploy' } },
      ],
      choices,
    );
    const problems = await store.problems.list({ hidden: [], limit: 10 });
    expect(problems.map((p) => [p.hostname, p.type, p.rule, p.severity, p.count]).sort()).toEqual([
      ['CNT01', 'host.activity', 'host_activity', 'info', 2],
      ['CNT02', 'host.activity', 'host_activity', 'info', 1],
    ]);
    const cnt01 = problems.find((p) => p.hostname === 'CNT01')!;
    expect(cnt01.title).toBe('Counted activity on CNT01');
    expect(await store.problems.timeline(cnt01.id, 10)).toHaveLength(3);
    expect(facts.filter((f) => f.type === 'problem.opened')).toHaveLength(2);
  });
});
