import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import type { NotificationContent } from '../../shared/src/index.js';
import { openStore, type OutboxRecord, type Store } from '../../daemon/src/store/index.js';
import { STORE_KINDS, storeEnv, tempDir, type StoreKind } from '../helpers/stores.js';

/** Two store instances on one database: what two daemons sharing a store see. */
async function twoStores(kind: StoreKind): Promise<[Store, Store]> {
  const result = loadConfig(storeEnv(kind, tempDir()));
  if (!result.ok) throw new Error(result.problems.join('; '));
  const a = await openStore(result.config.store);
  return [a, await openStore(result.config.store)];
}

const content: NotificationContent = { kind: 'test', requested_by: 'admin' };

function row(over: Partial<OutboxRecord> = {}): OutboxRecord {
  return {
    id: randomUUID(),
    topic: 'event',
    channel: 'webhook',
    target: null,
    ref: 'e1',
    content,
    status: 'pending',
    attempts: 0,
    max_attempts: 3,
    next_attempt_ms: 1000,
    lease_until_ms: null,
    created_ms: 1000,
    updated_ms: 1000,
    sent_ms: null,
    last_error: null,
    history: [],
    ...over,
  };
}

describe.each(STORE_KINDS)('notification store contract: %s', (kind) => {
  let stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  it('hands each due outbox row to exactly one of two daemons claiming in parallel, and takes over expired leases', async () => {
    const [a, b] = (stores = await twoStores(kind));
    const rows = Array.from({ length: 30 }, (_, i) => row({ next_attempt_ms: 1000 + i }));
    await a.outbox.insertMany([...rows, row({ next_attempt_ms: 99_999 }), row({ channel: 'smtp' })]);
    expect(await b.outbox.countPending()).toBe(32);
    const claims = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => (i % 2 ? a : b).outbox.claimDue('webhook', 5000, 10, 6000)));
    // Claimed rows are being sent, no longer waiting: the outbox depth in /metrics counts the others.
    expect(await a.outbox.countPending()).toBe(2);
    const ids = claims.flat().map((r) => r.id);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    expect(claims.flat().every((r) => r.status === 'sending' && r.lease_until_ms === 6000)).toBe(true);
    expect(await b.outbox.claimDue('webhook', 5999, 50, 9000)).toEqual([]);
    // The leases ran out (the daemon died mid-delivery): the rows are due again.
    expect(await b.outbox.claimDue('webhook', 6001, 50, 9000)).toHaveLength(30);
  });

  it('records attempts with a bounded history, retries now, and reports the carriers of a topic', async () => {
    const [a] = (stores = await twoStores(kind));
    const r = row({ topic: 'problem.opened', ref: 'p1' });
    await a.outbox.insertMany([r, row({ topic: 'problem.opened', ref: 'p1', channel: 'telegram', target: '42' }), row({ topic: 'problem.opened', ref: 'p1', channel: 'smtp', status: 'failed' })]);
    expect(await a.outbox.retryNow(r.id, 1)).toMatchObject({ status: 'pending', next_attempt_ms: 1 });
    for (let i = 0; i < 25; i++) {
      await a.outbox.recordAttempt(r.id, { status: i < 24 ? 'pending' : 'failed', next_attempt_ms: 2000 + i, last_error: `boom ${i}`, attempt: { at_ms: 2000 + i, ok: false, error: `boom ${i}`, duration_ms: 1 } });
    }
    const stored = (await a.outbox.byId(r.id))!;
    expect(stored).toMatchObject({ status: 'failed', attempts: 25, last_error: 'boom 24', sent_ms: null });
    expect(stored.history).toHaveLength(20);
    expect(stored.history[19].error).toBe('boom 24');
    const retried = (await a.outbox.retryNow(r.id, 5000))!;
    expect(retried).toMatchObject({ status: 'pending', next_attempt_ms: 5000, max_attempts: 26 });
    await a.outbox.recordAttempt(r.id, { status: 'sent', next_attempt_ms: 6000, last_error: null, attempt: { at_ms: 6000, ok: true, error: null, duration_ms: 3 } });
    expect(await a.outbox.retryNow(r.id, 7000)).toBeNull();
    expect((await a.outbox.byId(r.id))!.sent_ms).toBe(6000);
    expect((await a.outbox.carriers('problem.opened', 'p1')).sort()).toEqual(['telegram', 'webhook']);
    expect((await a.outbox.list({ channel: 'smtp', limit: 10 })).map((x) => x.status)).toEqual(['failed']);
    expect(await a.outbox.list({ status: 'sent', topic: 'event', limit: 10 })).toEqual([]);
  });

  it('prunes only finished delivery log rows older than the retention', async () => {
    const [a] = (stores = await twoStores(kind));
    const old = [row({ status: 'sent', created_ms: 10 }), row({ status: 'failed', created_ms: 20 }), row({ status: 'pending', created_ms: 30 })];
    const young = row({ status: 'sent', created_ms: 500 });
    await a.outbox.insertMany([...old, young]);
    expect(await a.outbox.prune(100)).toBe(2);
    expect((await a.outbox.list({ limit: 10 })).map((r) => r.id).sort()).toEqual([old[2].id, young.id].sort());
  });

  it('claims a report day for one daemon only, hands it over after the lease, and never after it is done', async () => {
    const [a, b] = (stores = await twoStores(kind));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).reports.claimDay('2026-06-03', `d${i}`, 1000, 2000)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.reports.claimDay('2026-06-03', 'late', 1500, 3000)).toBe(false);
    expect(await a.reports.claimDay('2026-06-03', 'taker', 2500, 3000)).toBe(true);
    await a.reports.finishDay('2026-06-03', 'taker', 'r1');
    expect(await b.reports.claimDay('2026-06-03', 'again', 9999, 20000)).toBe(false);
    expect(await b.reports.claimDay('2026-06-04', 'next', 9999, 20000)).toBe(true);
  });

  it('keeps the first VAPID key pair written and one subscription per endpoint', async () => {
    const [a, b] = (stores = await twoStores(kind));
    const keys = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? a : b).push.ensureVapidKeys({ publicKey: `pub${i}`, privateKey: `priv${i}` })));
    expect(new Set(keys.map((k) => k.publicKey)).size).toBe(1);
    const first = await a.push.upsert({ id: 's1', endpoint: 'https://push.example/1', p256dh: 'k1', auth: 'a1', user_id: 'u1', label: null, created_ms: 1 }, 5);
    const again = await b.push.upsert({ id: 's2', endpoint: 'https://push.example/1', p256dh: 'k2', auth: 'a2', user_id: 'u1', label: 'phone', created_ms: 2 }, 5);
    expect(first.status).toBe('ok');
    expect(again).toEqual({ status: 'ok', record: { ...(first as { record: object }).record, p256dh: 'k2', auth: 'a2', label: 'phone' } });
    expect(await a.push.list()).toHaveLength(1);
    expect(await a.push.remove('s1')).toBe(true);
    expect(await a.push.byId('s1')).toBeNull();
  });

  it('never moves an endpoint to another user and bounds subscriptions per user, also under parallel upserts', async () => {
    const [a, b] = (stores = await twoStores(kind));
    const sub = (i: number, user: string, endpoint = `https://push.example/${user}/${i}`) => ({
      id: `${user}-${i}`,
      endpoint,
      p256dh: `k${i}`,
      auth: `a${i}`,
      user_id: user,
      label: null,
      created_ms: i,
    });
    expect((await a.push.upsert(sub(0, 'u1', 'https://push.example/shared'), 3)).status).toBe('ok');
    const takeover = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? a : b).push.upsert(sub(10 + i, 'u2', 'https://push.example/shared'), 3)));
    expect(takeover.every((r) => r.status === 'other_user')).toBe(true);
    expect((await a.push.list()).map((s) => [s.endpoint, s.user_id])).toEqual([['https://push.example/shared', 'u1']]);

    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).push.upsert(sub(i, 'u3'), 3)));
    expect(burst.filter((r) => r.status === 'ok')).toHaveLength(3);
    expect(burst.filter((r) => r.status === 'limit')).toHaveLength(5);
    // Refreshing one of one's own endpoints is not a new subscription.
    const own = (await a.push.list()).find((s) => s.user_id === 'u3')!;
    expect((await a.push.upsert({ ...own, id: 'other', p256dh: 'fresh' }, 3)).status).toBe('ok');
    expect(await b.push.removeByUser('u3')).toBe(3);
    expect((await a.push.list()).map((s) => s.user_id)).toEqual(['u1']);
  });
});
