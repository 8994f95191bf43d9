import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Store, UserRecord } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function user(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: randomUUID(),
    username: `u-${randomUUID().slice(0, 8)}`,
    display_name: null,
    role: 'monitor',
    active: true,
    password_hash: 'scrypt$1$1$1$AA==$AA==',
    token_version: 0,
    created_ms: 1,
    updated_ms: 1,
    last_login_ms: null,
    ...overrides,
  };
}

describe.each(STORE_KINDS)('users, throttle, tickets, settings, audit contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('keeps usernames unique case-insensitively under 20 parallel inserts', async () => {
    store = await openFreshStore(kind);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => store.users.insert(user({ username: i % 2 ? 'Alice' : 'alice' }))));
    expect(outcomes.filter((o) => o === 'inserted')).toHaveLength(1);
    expect((await store.users.byUsername('ALICE'))?.username).toMatch(/^alice$/i);
  });

  it('records the latest sign-in, never moving it back, and keeps it through other changes', async () => {
    store = await openFreshStore(kind);
    const u = user();
    await store.users.insert(u);
    expect((await store.users.byId(u.id))?.last_login_ms).toBeNull();
    await store.users.recordLogin(u.id, 5_000);
    // A daemon recording late (its sign-in started earlier): the later sign-in stays.
    await store.users.recordLogin(u.id, 9_000);
    await store.users.recordLogin(u.id, 7_000);
    expect((await store.users.byUsername(u.username))?.last_login_ms).toBe(9_000);
    await store.users.update(u.id, { display_name: 'Renamed', updated_ms: 10 });
    expect((await store.users.list()).find((x) => x.id === u.id)).toMatchObject({ display_name: 'Renamed', last_login_ms: 9_000 });
    await store.users.recordLogin(randomUUID(), 1);
    expect(await store.users.count()).toBe(1);
  });

  it('bumps token_version on a new password only, and never lets the last active admin go, even in a race', async () => {
    store = await openFreshStore(kind);
    const a = user({ role: 'admin' });
    const b = user({ role: 'admin' });
    await store.users.insert(a);
    await store.users.insert(b);
    const renamed = await store.users.update(a.id, { display_name: 'A', updated_ms: 2 });
    expect(renamed).toMatchObject({ status: 'ok', user: { display_name: 'A', token_version: 0 } });
    expect(await store.users.update(a.id, { password_hash: 'scrypt$x', updated_ms: 3 })).toMatchObject({ status: 'ok', user: { token_version: 1 } });
    const race = await Promise.all([
      store.users.update(a.id, { role: 'monitor', updated_ms: 4 }),
      store.users.update(b.id, { active: false, updated_ms: 4 }),
    ]);
    const admins = (await store.users.list()).filter((u) => u.role === 'admin' && u.active);
    // SQLite serialises the two: one wins. MongoDB's undo may refuse both. Never both succeed.
    const ok = race.filter((r) => r.status === 'ok').length;
    expect(ok).toBeLessThanOrEqual(1);
    expect(race.filter((r) => r.status === 'last_admin')).toHaveLength(2 - ok);
    expect(admins).toHaveLength(2 - ok);
    // When both were refused, two admins remain and one of them may go.
    if (admins.length === 2) expect(await store.users.delete(admins[1].id)).toMatchObject({ status: 'ok' });
    const last = admins[0];
    expect(await store.users.delete(last.id)).toEqual({ status: 'last_admin' });
    expect(await store.users.update(last.id, { role: 'monitor', updated_ms: 5 })).toEqual({ status: 'last_admin' });
    expect(await store.users.delete(randomUUID())).toEqual({ status: 'not_found' });
  });

  it('sets a sign-in lock once under 10 parallel attempts and clears failures with it', async () => {
    store = await openFreshStore(kind);
    let failures: number[] = [];
    for (let i = 0; i < 5; i++) failures = await store.loginThrottle.recordFailure('bob', 1000 + i, 3);
    expect(failures).toEqual([1002, 1003, 1004]);
    expect((await store.loginThrottle.state('bob'))!.locked_until_ms).toBeNull();
    const winners = await Promise.all(Array.from({ length: 10 }, () => store.loginThrottle.lock('bob', 9000, 2000)));
    expect(winners.filter(Boolean)).toHaveLength(1);
    expect(await store.loginThrottle.state('bob')).toEqual({ failures_ms: [], locked_until_ms: 9000 });
    expect(await store.loginThrottle.lock('bob', 20_000, 9000)).toBe(true);
  });

  it('lists the locks in force among given names, and an unlock lifts the lock and the failures', async () => {
    store = await openFreshStore(kind);
    await store.loginThrottle.recordFailure('dave', 1000, 3);
    expect(await store.loginThrottle.lock('dave', 9000, 1000)).toBe(true);
    await store.loginThrottle.lock('erin', 1500, 1000);
    await store.loginThrottle.recordFailure('frank', 1000, 3);
    expect(await store.loginThrottle.locksOf(['dave', 'erin', 'frank', 'nobody'], 2000)).toEqual(new Map([['dave', 9000]]));
    expect(await store.loginThrottle.locksOf([], 2000)).toEqual(new Map());
    expect(await store.loginThrottle.unlock('dave', 2000)).toBe(9000);
    expect(await store.loginThrottle.unlock('frank', 2000)).toBeNull();
    expect(await store.loginThrottle.unlock('erin', 2000)).toBeNull();
    expect(await store.loginThrottle.locksOf(['dave'], 2000)).toEqual(new Map());
    expect((await store.loginThrottle.state('dave'))?.locked_until_ms ?? null).toBeNull();
    expect((await store.loginThrottle.state('frank'))?.failures_ms ?? []).toEqual([]);
    // A new lock after an unlock is set again (and alerted once again).
    expect(await store.loginThrottle.lock('dave', 12_000, 3000)).toBe(true);
  });

  it('counts every one of parallel failures, of a new username and of a known one', async () => {
    store = await openFreshStore(kind);
    for (const round of [0, 1]) {
      const seen = await Promise.all([0, 1, 2].map((i) => store.loginThrottle.recordFailure('carol', 3000 + round * 10 + i, 10)));
      // The answer of the last failure recorded lists them all: that one locks at the limit.
      expect(Math.max(...seen.map((f) => f.length))).toBe(3 * (round + 1));
    }
    expect((await store.loginThrottle.state('carol'))!.failures_ms).toHaveLength(6);
  });

  it('redeems a stream ticket once under parallel use, and not after expiry', async () => {
    store = await openFreshStore(kind);
    await store.streamTickets.insert('h1', 'user-1', 5000, { session_id: 's-1', ends_ms: 90_000 });
    const redeemed = await Promise.all(Array.from({ length: 10 }, () => store.streamTickets.consume('h1', 1000)));
    expect(redeemed.filter((r) => r !== null)).toEqual([{ user_id: 'user-1', session: { session_id: 's-1', ends_ms: 90_000 } }]);
    await store.streamTickets.insert('h2', 'user-1', 5000, null);
    expect(await store.streamTickets.consume('h2', 5000)).toBeNull();
    await store.streamTickets.insert('h4', 'user-1', 5000, null);
    expect(await store.streamTickets.consume('h4', 1000)).toEqual({ user_id: 'user-1', session: null });
    await store.streamTickets.insert('h3', 'user-1', 5000, null);
    await store.streamTickets.prune(6000);
    expect(await store.streamTickets.consume('h3', 1000)).toBeNull();
  });

  it('keeps the first of concurrent insertIfAbsent settings and replaces on put', async () => {
    store = await openFreshStore(kind);
    const values = await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.settings.insertIfAbsent({ key: 'k', value: `v${i}`, updated_ms: i, updated_by: null })),
    );
    expect(new Set(values.map((v) => v.value)).size).toBe(1);
    await store.settings.put({ key: 'k', value: 'new', updated_ms: 99, updated_by: 'admin' });
    expect(await store.settings.get('k')).toEqual({ key: 'k', value: 'new', updated_ms: 99, updated_by: 'admin' });
    expect((await store.settings.list()).map((s) => s.key)).toContain('k');
  });

  it('lists audit entries newest first with action prefix, actor, outcome and time filters', async () => {
    store = await openFreshStore(kind);
    const base = { actor_id: null, ip: '127.0.0.1', target: null, details: { n: 1 } };
    const entries = [
      { ...base, id: randomUUID(), at_ms: 1000, actor_username: 'Alice', action: 'auth.login_failed', outcome: 'failed' as const },
      { ...base, id: randomUUID(), at_ms: 2000, actor_username: 'alice', action: 'auth.login_succeeded', outcome: 'ok' as const },
      { ...base, id: randomUUID(), at_ms: 3000, actor_username: 'bob', action: 'user.created', outcome: 'ok' as const, target: 'user:1' },
    ];
    for (const e of entries) await store.audit.insert(e);
    const all = await store.audit.list({ limit: 10 });
    expect(all.map((e) => e.at_ms)).toEqual([3000, 2000, 1000]);
    expect(all[2]).toEqual(entries[0]);
    expect((await store.audit.list({ action: 'auth.', limit: 10 })).map((e) => e.at_ms)).toEqual([2000, 1000]);
    expect((await store.audit.list({ action: 'auth', limit: 10 })).length).toBe(0);
    expect((await store.audit.list({ actor: 'ALICE', limit: 10 })).length).toBe(2);
    expect((await store.audit.list({ outcome: 'failed', limit: 10 })).map((e) => e.at_ms)).toEqual([1000]);
    expect((await store.audit.list({ from_ms: 1500, before_ms: 3000, limit: 10 })).map((e) => e.at_ms)).toEqual([2000]);
    expect((await store.audit.list({ target: 'user:1', limit: 1 })).map((e) => e.action)).toEqual(['user.created']);
    // The total of a paged list: the same filters, no limit.
    expect(await store.audit.count({})).toBe(3);
    expect(await store.audit.count({ action: 'auth.' })).toBe(2);
    expect(await store.audit.count({ actor: 'ALICE', outcome: 'ok' })).toBe(1);
    expect(await store.audit.count({ from_ms: 1500, before_ms: 3000 })).toBe(1);
    expect(await store.audit.count({ target: 'user:2' })).toBe(0);
  });

  it('pages the audit log on from the last entry shown, losing none of several entries of one millisecond', async () => {
    store = await openFreshStore(kind);
    const base = { actor_id: null, actor_username: 'alice', ip: null, target: null, outcome: 'ok' as const, details: {} };
    const at = [1000, 2000, 2000, 2000, 2000, 2000, 3000];
    for (const [i, at_ms] of at.entries()) await store.audit.insert({ ...base, id: randomUUID(), at_ms, action: `user.step_${i}` });
    const seen: string[] = [];
    let page = await store.audit.list({ limit: 2 });
    while (page.length > 0) {
      seen.push(...page.map((e) => e.action));
      const last = page.at(-1)!;
      page = await store.audit.list({ limit: 2, before_ms: last.at_ms, before_id: last.id });
    }
    // Newest first, and within one millisecond the later insert first, each entry once.
    expect(seen).toEqual(['user.step_6', 'user.step_5', 'user.step_4', 'user.step_3', 'user.step_2', 'user.step_1', 'user.step_0']);
    const cursor = (await store.audit.list({ limit: 3 })).at(-1)!;
    expect(await store.audit.count({ before_ms: cursor.at_ms, before_id: cursor.id })).toBe(4);
    // A cursor entry that is gone (pruned): the page goes on before its time.
    expect((await store.audit.list({ limit: 10, before_ms: 2000, before_id: randomUUID() })).map((e) => e.action)).toEqual(['user.step_0']);
  });
});
