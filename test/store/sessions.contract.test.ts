import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionRecord, Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function session(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { id: randomUUID(), user_id: 'user-1', created_ms: 1000, expires_ms: 50_000, revoked_ms: null, ip: '127.0.0.1', ...overrides };
}

describe.each(STORE_KINDS)('sessions contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('stores a session and finds it by id', async () => {
    store = await openFreshStore(kind);
    const s = session();
    await store.sessions.insert(s);
    expect(await store.sessions.byId(s.id)).toEqual(s);
    expect(await store.sessions.byId(randomUUID())).toBeNull();
  });

  it('revokes a session under 10 parallel sign-outs, keeps it revoked, and knows no unknown session', async () => {
    store = await openFreshStore(kind);
    const s = session();
    await store.sessions.insert(s);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.sessions.revoke(s.id, 2000 + i)));
    expect(results.every(Boolean)).toBe(true);
    const revokedMs = (await store.sessions.byId(s.id))?.revoked_ms;
    expect(revokedMs).toBeGreaterThanOrEqual(2000);
    expect(await store.sessions.revoke(s.id, 9000)).toBe(true);
    expect((await store.sessions.byId(s.id))?.revoked_ms).toBe(revokedMs);
    expect(await store.sessions.revoke(randomUUID(), 3000)).toBe(false);
  });

  it("revokes all of one user's sessions and no one else's", async () => {
    store = await openFreshStore(kind);
    const mine = [session(), session(), session({ revoked_ms: 1500 })];
    const other = session({ user_id: 'user-2' });
    for (const s of [...mine, other]) await store.sessions.insert(s);
    expect(await store.sessions.revokeUser('user-1', 4000)).toBe(2);
    expect((await store.sessions.byId(mine[0].id))?.revoked_ms).toBe(4000);
    expect((await store.sessions.byId(mine[2].id))?.revoked_ms).toBe(1500);
    expect((await store.sessions.byId(other.id))?.revoked_ms).toBeNull();
  });

  it('prunes sessions that ended before the cut-off only', async () => {
    store = await openFreshStore(kind);
    const expired = session({ expires_ms: 9000 });
    const revoked = session({ revoked_ms: 8000 });
    const live = session({ expires_ms: 20_000 });
    const lateRevoked = session({ revoked_ms: 15_000 });
    for (const s of [expired, revoked, live, lateRevoked]) await store.sessions.insert(s);
    expect(await store.sessions.prune(10_000)).toBe(2);
    expect(await store.sessions.byId(expired.id)).toBeNull();
    expect(await store.sessions.byId(revoked.id)).toBeNull();
    expect(await store.sessions.byId(live.id)).not.toBeNull();
    expect(await store.sessions.byId(lateRevoked.id)).not.toBeNull();
  });
});
