import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent, type Event } from '../../shared/src/index.js';
import { problemFingerprint } from '../../daemon/src/correlation/correlation.rules.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { ProblemMatchInput, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00.000Z');
const MIN = 60_000;

let seq = 0;
function match(key: string, atMs: number, overrides: Partial<ProblemMatchInput> = {}): ProblemMatchInput {
  const eventId = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
  return {
    key,
    fingerprint: problemFingerprint(key),
    rule: 'severity',
    type: 'rdp.login.failed',
    host_id: 'host-1',
    hostname: 'RDS01',
    title: 'RDP login failed',
    severity: 'warning',
    window_ms: 30 * MIN,
    first_ms: atMs,
    last_ms: atMs,
    count: 1,
    now_ms: T0,
    links: [{ event_id: eventId, occurred_ms: atMs, counted: true }],
    ...overrides,
  };
}

async function store(s: Store, overrides: Parameters<typeof buildEvent>[0][], receivedMs = T0): Promise<string> {
  const items = overrides.map((o) => {
    const parsed = parseEvent(buildEvent(o));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const event: Event = parsed.event;
    return { event, host: hostObservation(event, receivedMs), occurred_ms: Date.parse(event.occurred_at), received_ms: receivedMs, actor_user: actorUser(event), agent_version: event.source.product_version };
  });
  const outcomes = await s.events.insertBatch(items);
  const first = outcomes[0];
  if (first.status !== 'inserted') throw new Error('not inserted');
  return first.host_id;
}

const iso = (ms: number) => new Date(ms).toISOString();

describe.each(STORE_KINDS)('correlation at ingest, store methods on %s', (kind) => {
  let s: Store;
  afterEach(async () => {
    await s?.close();
  });

  it('upsertMatchMany applies each input like upsertMatch, in order per key, results in input order', async () => {
    s = await openFreshStore(kind);
    const a = 'host-1|rdp.login.failed|severity';
    const b = 'host-1|ssh.login.failed|severity';
    const results = await s.problems.upsertMatchMany([
      match(a, T0),
      match(b, T0, { count: 0, links: [{ event_id: '00000000-0000-4000-8000-999999999999', occurred_ms: T0, counted: false }] }),
      match(a, T0 + 10 * MIN, { severity: 'high' }),
      match(a, T0 + 5 * 60 * MIN),
    ]);
    expect(results.map((r) => r.created)).toEqual([true, false, false, true]);
    // A replay alone opens nothing.
    expect(results[1].problem).toBeNull();
    // The second input of key a grew the problem the first opened (inputs of one key in order).
    expect(results[2].problem).toMatchObject({ id: results[0].problem!.id, count: 2, severity: 'high', first_seen_ms: T0, last_seen_ms: T0 + 10 * MIN });
    // Hours later: outside the window, a problem of its own.
    expect(results[3].problem!.id).not.toBe(results[0].problem!.id);
    const stored = await s.problems.byId(results[0].problem!.id);
    expect(stored).toMatchObject({ count: 2, severity: 'high', status: 'open', comments: [] });
    const timeline = await s.problems.timeline(results[0].problem!.id, 10);
    expect(timeline.map((l) => l.occurred_ms)).toEqual([T0 + 10 * MIN, T0]);
    expect(await s.problems.upsertMatchMany([])).toEqual([]);
  });

  // MongoDB answers lookups of the last minutes from `event_lookups`, older ones from `events`: the same answers.
  it.each([
    ['received long ago', T0, () => T0],
    ['received just now', Math.floor(Date.now() / MIN) * MIN - 2 * MIN, () => Date.now()],
  ])('details returns the asked details fields of the given hosts, types and time range, newest first: %s', async (_, T0, receivedMs) => {
    s = await openFreshStore(kind);
    const host = { hostname: 'GW01' };
    const details = { user: 'CORP\\anna', internal_ip: '10.0.0.5', external_ip: '203.0.113.7', protocol: 'HTTP' };
    const hostId = await store(s, [
      { host, type: 'rdg.connection.success', severity: 'info', occurred_at: iso(T0), details },
      { host, type: 'rdg.connection.disconnected', severity: 'info', occurred_at: iso(T0 + 5000), details: { user: 'CORP\\anna', internal_ip: '-' } },
      { host, type: 'rdg.connection.failed', severity: 'info', occurred_at: iso(T0 + 8000), details: { user: 'CORP\\anna' } },
      { host, type: 'rdg.connection.success', severity: 'info', occurred_at: iso(T0 + 60_000), details },
      { host, type: 'rdp.login.failed', severity: 'warning', occurred_at: iso(T0 + 6000), details: { user: 'x' } },
    ], receivedMs());
    const otherId = await store(s, [{ host: { hostname: 'GW02' }, type: 'rdg.connection.disconnected', severity: 'info', occurred_at: iso(T0 + 5000), details }], receivedMs());

    const closed = await s.events.details({
      host_ids: [hostId],
      types: ['rdg.connection.disconnected', 'rdg.connection.failed'],
      from_ms: T0,
      to_ms: T0 + 10_000,
      keys: ['user', 'internal_ip', 'external_ip'],
      limit: 10,
    });
    expect(closed).toEqual([
      { event_id: expect.any(String), host_id: hostId, type: 'rdg.connection.failed', occurred_ms: T0 + 8000, details: { user: 'CORP\\anna' } },
      { event_id: expect.any(String), host_id: hostId, type: 'rdg.connection.disconnected', occurred_ms: T0 + 5000, details: { user: 'CORP\\anna', internal_ip: '-' } },
    ]);

    const opened = await s.events.details({
      host_ids: [hostId],
      types: ['rdg.connection.success'],
      from_ms: T0,
      to_ms: T0 + 60_000,
      keys: ['user', 'external_ip'],
      limit: 10,
    });
    // The end is exclusive; protocol and internal_ip were not asked for.
    expect(opened).toEqual([
      { event_id: expect.any(String), host_id: hostId, type: 'rdg.connection.success', occurred_ms: T0, details: { user: 'CORP\\anna', external_ip: '203.0.113.7' } },
    ]);
    const limited = await s.events.details({ host_ids: [hostId], types: ['rdg.connection.success'], from_ms: T0, to_ms: T0 + 61_000, keys: ['user'], limit: 1 });
    expect(limited.map((r) => r.occurred_ms)).toEqual([T0 + 60_000]);
    // Several hosts in one query: each row names its host.
    const both = await s.events.details({ host_ids: [hostId, otherId], types: ['rdg.connection.disconnected'], from_ms: T0, to_ms: T0 + 10_000, keys: ['user'], limit: 10 });
    expect(both.map((r) => r.host_id).sort()).toEqual([hostId, otherId].sort());
  });
});
