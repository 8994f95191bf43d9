import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { problemFingerprint } from '../../daemon/src/correlation/correlation.rules.js';
import { openStore, type ProblemMatchInput, type Store } from '../../daemon/src/store/index.js';
import { STORE_KINDS, storeEnv, tempDir, type StoreKind } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00Z');
const MIN = 60_000;
const WINDOW = 60 * MIN;

/** Two independent connections to one fresh store: concurrency between them is real on both adapters. */
async function openPair(kind: StoreKind): Promise<[Store, Store]> {
  const result = loadConfig(storeEnv(kind, tempDir()));
  if (!result.ok) throw new Error(result.problems.join('; '));
  const a = await openStore(result.config.store);
  const b = await openStore(result.config.store);
  return [a, b];
}

let seq = 0;
function match(overrides: Partial<ProblemMatchInput> = {}): ProblemMatchInput {
  const key = overrides.key ?? 'host-1|rdp.login.failed|severity';
  const at = overrides.first_ms ?? T0;
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
    window_ms: WINDOW,
    first_ms: at,
    last_ms: overrides.last_ms ?? at,
    count: 1,
    now_ms: T0,
    links: [{ event_id: eventId, occurred_ms: at, counted: true }],
    ...overrides,
  };
}

describe.each(STORE_KINDS)('correlation store contract: %s', (kind) => {
  let stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  it('turns 100 parallel matching events from two connections into exactly one problem with count 100', { timeout: 90_000 }, async () => {
    stores = await openPair(kind);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => stores[i % 2].problems.upsertMatch(match({ first_ms: T0 + i * 1000 }))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const ids = new Set(results.map((r) => r.problem!.id));
    expect(ids.size).toBe(1);
    const [id] = ids;
    const problem = await stores[0].problems.byId(id);
    expect(problem).toMatchObject({ count: 100, first_seen_ms: T0, last_seen_ms: T0 + 99_000, status: 'open' });
    expect(await stores[0].problems.timeline(id, 500)).toHaveLength(100);
    expect(await stores[0].problems.list({ hidden: [], limit: 10 })).toHaveLength(1);
  });

  it('grows a problem another connection changed since this one last wrote it as it now is: count, acknowledgement, resolution', async () => {
    // On MongoDB each daemon keeps the active problems it wrote; a copy the other one changed
    // since must not be written over.
    stores = await openPair(kind);
    const [a, b] = stores;
    const first = (await a.problems.upsertMatch(match({ first_ms: T0 }))).problem!;
    await a.problems.upsertMatch(match({ first_ms: T0 + 1000 }));
    await b.problems.upsertMatch(match({ first_ms: T0 + 2000 }));
    const grown = await a.problems.upsertMatch(match({ first_ms: T0 + 3000 }));
    expect(grown).toMatchObject({ created: false, problem: { id: first.id, count: 4, last_seen_ms: T0 + 3000 } });
    expect(await b.problems.transition(first.id, ['open'], { status: 'acknowledged', now_ms: T0 + 4000, acknowledged_by: 'anna' })).not.toBeNull();
    const afterAck = await a.problems.upsertMatch(match({ first_ms: T0 + 5000 }));
    expect(afterAck.problem).toMatchObject({ id: first.id, count: 5, status: 'acknowledged', acknowledged_by: 'anna' });
    expect(await b.problems.transition(first.id, ['acknowledged'], { status: 'resolved', now_ms: T0 + 6000, resolved_by: 'manual', resolved_by_user: 'anna' })).not.toBeNull();
    const afterResolve = await a.problems.upsertMatch(match({ first_ms: T0 + 7000 }));
    expect(afterResolve.created).toBe(true);
    expect(afterResolve.problem!.id).not.toBe(first.id);
    expect(await b.problems.byId(first.id)).toMatchObject({ count: 5, status: 'resolved' });
    expect(await b.problems.byId(afterResolve.problem!.id)).toMatchObject({ count: 1, status: 'open' });
    expect(await a.problems.byId(first.id)).not.toHaveProperty('rev');
  });

  it('places late and out-of-order events by occurred time, opening a second problem only outside the window', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    const a = await s.problems.upsertMatch(match({ first_ms: T0 + 5 * 60 * MIN }));
    const late = await s.problems.upsertMatch(match({ first_ms: T0 + 4.5 * 60 * MIN, severity: 'high' }));
    expect(late.created).toBe(false);
    expect(late.problem).toMatchObject({ id: a.problem!.id, count: 2, first_seen_ms: T0 + 4.5 * 60 * MIN, severity: 'high' });
    const older = await s.problems.upsertMatch(match({ first_ms: T0 }));
    expect(older.created).toBe(true);
    const newer = await s.problems.upsertMatch(match({ first_ms: T0 + 10 * 60 * MIN }));
    expect(newer.created).toBe(true);
    // An event between the two earlier ones joins the one whose window it falls in.
    const mid = await s.problems.upsertMatch(match({ first_ms: T0 + 30 * MIN }));
    expect(mid.problem!.id).toBe(older.problem!.id);
    const again = await s.problems.upsertMatch(match({ first_ms: T0 + 5 * 60 * MIN + 10 * MIN }));
    expect(again.problem!.id).toBe(a.problem!.id);
    expect((await s.problems.byId(a.problem!.id))!.count).toBe(3);
  });

  it('links replays without counting them and never creates a problem from replays alone', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    const claimed = await s.events.claimFingerprints([
      { fp: 'fp-1', host_id: 'h', event_id: 'e1' },
      { fp: 'fp-2', host_id: 'h', event_id: 'e2' },
      { fp: 'fp-1', host_id: 'h', event_id: 'e3' },
    ]);
    expect(claimed).toEqual([true, true, false]);
    expect(await s.events.claimFingerprints([{ fp: 'fp-2', host_id: 'h', event_id: 'e4' }])).toEqual([false]);
    const none = await s.problems.upsertMatch(match({ count: 0, links: [{ event_id: 'e3', occurred_ms: T0, counted: false }] }));
    expect(none).toEqual({ problem: null, created: false });
    const first = await s.problems.upsertMatch(match());
    const replay = await s.problems.upsertMatch(match({ count: 0, links: [{ event_id: 'e3', occurred_ms: T0, counted: false }] }));
    expect(replay.problem).toMatchObject({ id: first.problem!.id, count: 1 });
    const timeline = await s.problems.timeline(first.problem!.id, 10);
    expect(timeline.map((l) => l.counted).sort()).toEqual([false, true]);
  });

  it('allows a transition once (compare-and-set) and lets a resolved key open a new problem', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    const { problem } = await s.problems.upsertMatch(match());
    const comment = { at_ms: T0, by: 'alice', action: 'acknowledge' as const, text: 'looking' };
    const acks = await Promise.all(
      Array.from({ length: 5 }, () => s.problems.transition(problem!.id, ['open'], { status: 'acknowledged', now_ms: T0, acknowledged_by: 'alice', comment })),
    );
    expect(acks.filter(Boolean)).toHaveLength(1);
    expect(acks.find(Boolean)).toMatchObject({ status: 'acknowledged', acknowledged_by: 'alice', acknowledged_ms: T0, comments: [comment] });
    const resolved = await s.problems.transition(problem!.id, ['open', 'acknowledged'], {
      status: 'resolved',
      now_ms: T0 + 1,
      resolved_by: 'manual',
      resolved_by_user: 'bob',
    });
    expect(resolved).toMatchObject({ status: 'resolved', resolved_by: 'manual', resolved_by_user: 'bob', resolved_ms: T0 + 1 });
    const next = await s.problems.upsertMatch(match({ first_ms: T0 + 1000 }));
    expect(next.created).toBe(true);
    expect(await s.problems.counts(T0, [])).toEqual({ open: 1, created_active: 1, resolved: 1 });
    expect(await s.problems.counts(T0, ['rdp.login'])).toEqual({ open: 0, created_active: 0, resolved: 0 });
  });

  it('keeps one silence problem per host, reopened only by a compare-and-set on its resolution', async () => {
    stores = await openPair(kind);
    const input = { key: 'h1|host.silence|host_silence', fingerprint: 'f', host_id: 'h1', hostname: 'RDS01', title: 'silent', now_ms: T0 };
    const opened = await Promise.all(stores.map((s) => s.problems.openSilence(input)));
    expect(opened.filter(Boolean)).toHaveLength(1);
    const id = opened.find(Boolean)!.id;
    await stores[0].problems.transition(id, ['open'], { status: 'resolved', now_ms: T0 + 5, resolved_by: 'auto', resolved_by_user: null });
    expect(await stores[0].problems.openSilence({ ...input, now_ms: T0 + 6 })).toBeNull();
    const reopened = await Promise.all(stores.map((s) => s.problems.reopenSilence(id, T0 + 5, T0 + 10, 'silent again')));
    expect(reopened.filter(Boolean)).toHaveLength(1);
    expect(reopened.find(Boolean)).toMatchObject({ id, status: 'open', count: 2, title: 'silent again', resolved_ms: null });
    expect(await stores[0].problems.byKeys([input.key])).toHaveLength(1);
  });

  it('takes a lease for one owner at a time until it expires', async () => {
    stores = await openPair(kind);
    const [a, b] = stores;
    const results = await Promise.all([a.leases.acquire('job', 'A', T0, 1000), b.leases.acquire('job', 'B', T0, 1000)]);
    expect(results.filter((t) => t !== null)).toEqual([1]);
    const holder = results[0] !== null ? 'A' : 'B';
    const other = holder === 'A' ? 'B' : 'A';
    expect(await a.leases.acquire('job', holder, T0 + 500, 1000)).toBe(1);
    expect(await a.leases.acquire('job', other, T0 + 1000, 1000)).toBeNull();
    expect(await b.leases.acquire('job', other, T0 + 1501, 1000)).toBe(2);
    await b.leases.release('job', other);
    expect(await a.leases.acquire('job', holder, T0 + 1502, 1000)).toBe(3);
  });

  it('fences a paused leader out: its token is no longer the newest once another daemon took the lease', async () => {
    stores = await openPair(kind);
    const [a, b] = stores;
    expect(await a.leases.token('scan')).toBe(0);
    const mine = await a.leases.acquire('scan', 'A', T0, 1000);
    expect(mine).toBe(1);
    // Renewals keep the token; another lease name counts on its own.
    expect(await a.leases.acquire('scan', 'A', T0 + 900, 1000)).toBe(1);
    expect(await b.leases.acquire('report', 'B', T0, 1000)).toBe(1);
    expect(await b.leases.token('scan')).toBe(1);
    // A pauses past its expiry; B takes the lease over.
    const theirs = await b.leases.acquire('scan', 'B', T0 + 1901, 1000);
    expect(theirs).toBe(2);
    // A resumes: the newest token is not its own, so its side effect is not written; it cannot renew.
    expect(await a.leases.token('scan')).toBe(theirs);
    expect(await a.leases.acquire('scan', 'A', T0 + 1902, 1000)).toBeNull();
    // A's release (at stop) does not end B's hold, and B's own release hands on a higher token.
    await a.leases.release('scan', 'A');
    expect(await a.leases.acquire('scan', 'A', T0 + 1903, 1000)).toBeNull();
    await b.leases.release('scan', 'B');
    expect(await a.leases.token('scan')).toBe(2);
    expect(await a.leases.acquire('scan', 'A', T0 + 1904, 1000)).toBe(3);
    // Many daemons racing for an expired lease: one wins, with the next token.
    const raced = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2].leases.acquire('scan', `D${i}`, T0 + 5000, 1000)));
    expect(raced.filter((t) => t !== null)).toEqual([4]);
  });

  it('counts open and acknowledged problems per severity, not resolved ones', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    expect([...(await s.problems.activeCountsBySeverity()).values()].filter((n) => n > 0)).toEqual([]);
    const opened = await Promise.all(
      (['high', 'high', 'critical', 'warning'] as const).map(async (severity, i) => (await s.problems.upsertMatch(match({ key: `host-${i}|x|severity`, severity }))).problem!),
    );
    await s.problems.transition(opened[0].id, ['open'], { status: 'acknowledged', now_ms: T0 + 1, acknowledged_by: 'anna' });
    await s.problems.transition(opened[3].id, ['open'], { status: 'resolved', now_ms: T0 + 1, resolved_by: 'manual', resolved_by_user: 'anna' });
    const counts = await s.problems.activeCountsBySeverity();
    expect([counts.get('high'), counts.get('critical'), counts.get('warning') ?? 0, counts.get('info') ?? 0]).toEqual([2, 1, 0, 0]);
  });

  it('records heartbeats, announces a status change once, and keeps the previous inventory', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    await s.hostState.recordHeartbeats([{ host_id: 'h1', at_ms: T0 }, { host_id: 'h1', at_ms: T0 + 5 }]);
    expect((await s.hostState.byHost('h1'))!.heartbeat_ms).toBe(T0 + 5);
    // Never lowered; a host whose state holds only an inventory gets its first heartbeat.
    await s.hostState.recordHeartbeats([{ host_id: 'h1', at_ms: T0 - 100 }]);
    expect((await s.hostState.byHost('h1'))!.heartbeat_ms).toBe(T0 + 5);
    await s.hostState.replaceInventory('h3', { memory_gb: 2 }, T0);
    await s.hostState.recordHeartbeats([{ host_id: 'h3', at_ms: T0 + 7 }]);
    expect(await s.hostState.byHost('h3')).toMatchObject({ heartbeat_ms: T0 + 7, inventory: { memory_gb: 2 } });
    expect(await s.hostState.setStatus('h1', 'stale')).toBe(true);
    expect(await s.hostState.setStatus('h1', 'stale')).toBe(false);
    expect(await s.hostState.setStatus('h2', 'online')).toBe(true);
    expect(await s.hostState.countStale()).toBe(1);
    expect(await s.hostState.replaceInventory('h1', { memory_gb: 8 }, T0)).toEqual({ replaced: true, previous: null });
    expect(await s.hostState.replaceInventory('h1', { memory_gb: 16 }, T0 + 1)).toEqual({ replaced: true, previous: { memory_gb: 8 } });
    expect(await s.hostState.replaceInventory('h1', { memory_gb: 4 }, T0)).toEqual({ replaced: false, previous: null });
    expect(await s.hostState.byHost('h1')).toMatchObject({
      status: 'stale',
      inventory: { memory_gb: 16 },
      previous_inventory: { memory_gb: 8 },
      previous_inventory_ms: T0,
    });
    expect((await s.hostState.list()).map((h) => h.host_id).sort()).toEqual(['h1', 'h2', 'h3']);
  });

  it('announces a host online once per change across two connections, in the heartbeat\'s own write', async () => {
    stores = await openPair(kind);
    const [a, b] = stores;
    // A new host (no status yet) and one announced stale: each set online by exactly one call.
    await a.hostState.setStatus('h2', 'stale');
    const beats = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stores[i % 2].hostState.recordHeartbeats([{ host_id: 'h1', at_ms: T0 + i }, { host_id: 'h2', at_ms: T0 + i }])),
    );
    expect(beats.flat().sort()).toEqual(['h1', 'h2']);
    expect(await b.hostState.byHost('h1')).toMatchObject({ heartbeat_ms: T0 + 9, status: 'online' });
    expect(await a.hostState.byHost('h2')).toMatchObject({ heartbeat_ms: T0 + 9, status: 'online' });
    // Online already: a later heartbeat announces nothing; after a stale mark it announces again.
    expect(await b.hostState.recordHeartbeats([{ host_id: 'h1', at_ms: T0 + 20 }])).toEqual([]);
    expect(await a.hostState.setStatus('h1', 'stale')).toBe(true);
    expect(await b.hostState.recordHeartbeats([{ host_id: 'h1', at_ms: T0 + 21 }, { host_id: 'h1', at_ms: T0 + 22 }])).toEqual(['h1']);
    expect(await a.hostState.countStale()).toBe(0);
  });

  it('sums rollups over a bucket range and marks both sides of a flap', async () => {
    [stores[0]] = await openPair(kind);
    const s = stores[0];
    await s.rollups.add([
      { bucket_ms: T0, dim: 'type', key: 'rdp.login.failed', severity: 'warning', n: 3 },
      { bucket_ms: T0 + 3_600_000, dim: 'type', key: 'rdp.login.failed', severity: 'warning', n: 2 },
      { bucket_ms: T0 - 3_600_000, dim: 'type', key: 'rdp.login.failed', severity: 'warning', n: 7 },
    ]);
    await s.rollups.add([{ bucket_ms: T0, dim: 'host', key: 'h1', severity: 'info', n: 4 }]);
    const sums = await s.rollups.sum(T0, T0 + 3_600_000);
    expect(sums.sort((x, y) => x.dim.localeCompare(y.dim))).toEqual([
      { bucket_ms: 0, dim: 'host', key: 'h1', severity: 'info', n: 4 },
      { bucket_ms: 0, dim: 'type', key: 'rdp.login.failed', severity: 'warning', n: 5 },
    ]);
    expect(await s.events.markFlap('c1', 'o1', 'h1')).toBe(true);
    expect(await s.events.markFlap('c1', 'o1', 'h1')).toBe(false);
    expect([...(await s.events.flapMarked(['o1', 'c1', 'x']))].sort()).toEqual(['c1', 'o1']);
  });
});
