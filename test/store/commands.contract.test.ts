import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRecord, Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function command(overrides: Partial<CommandRecord> = {}): CommandRecord {
  return {
    id: randomUUID(),
    host_id: 'h1',
    agent_instance_id: 'agent-a',
    type: 'qwinsta',
    params: {},
    state: 'queued',
    requested_by: 'alice',
    origin: 'host:h1',
    created_ms: 1000,
    updated_ms: 1000,
    delivered_ms: null,
    deliveries: 0,
    delivered_key_id: null,
    finished_ms: null,
    expires_ms: 100_000,
    result: null,
    ...overrides,
  };
}

const ok = { status: 'succeeded', stdout: 'out', stderr: '' } as const;

describe.each(STORE_KINDS)('commands contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('delivers a command once, redelivers it only after the timeout, and takes one result', async () => {
    store = await openFreshStore(kind);
    const c = command({ type: 'logoff', params: { session_id: 3 } });
    await store.commands.insert(c);
    await store.commands.insert(command({ agent_instance_id: 'agent-b', created_ms: 900 }));

    const first = await store.commands.claimForAgent('agent-a', 'key1', 2000, 60_000, 10);
    expect(first.delivered.map((d) => d.id)).toEqual([c.id]);
    expect(first.delivered[0]).toMatchObject({ state: 'delivered', deliveries: 1, delivered_ms: 2000, params: { session_id: 3 } });
    expect((await store.commands.claimForAgent('agent-a', 'key1', 3000, 60_000, 10)).delivered).toEqual([]);
    const again = await store.commands.claimForAgent('agent-a', 'key1', 62_000, 60_000, 10);
    expect(again.delivered).toMatchObject([{ id: c.id, deliveries: 2 }]);

    // Another agent's id, another key, or an unknown command: not found.
    expect(await store.commands.complete(c.id, { keyId: 'key1', agentInstanceId: 'agent-b' }, ok, 63_000)).toEqual({ status: 'not_found' });
    expect(await store.commands.complete(c.id, { keyId: 'key2', agentInstanceId: null }, ok, 63_000)).toEqual({ status: 'not_found' });
    expect(await store.commands.complete('nope', { keyId: 'key1', agentInstanceId: null }, ok, 63_000)).toEqual({ status: 'not_found' });

    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.commands.complete(c.id, { keyId: 'key1', agentInstanceId: 'agent-a' }, { ...ok, stdout: `r${i}` }, 63_000 + i),
      ),
    );
    expect(results.filter((r) => r.status === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'already_finished')).toHaveLength(5);
    const stored = await store.commands.byId(c.id);
    expect(stored).toMatchObject({ state: 'succeeded', result: { status: 'succeeded' } });
    expect(stored?.finished_ms).toBeGreaterThanOrEqual(63_000);
    expect((await store.commands.claimForAgent('agent-a', 'key1', 200_000, 60_000, 10)).delivered).toEqual([]);
  });

  it('hands a command to exactly one of concurrent polls', async () => {
    store = await openFreshStore(kind);
    const ids = [command({ created_ms: 1 }), command({ created_ms: 2 }), command({ created_ms: 3 })];
    for (const c of ids) await store.commands.insert(c);
    const polls = await Promise.all(Array.from({ length: 5 }, () => store.commands.claimForAgent('agent-a', 'k', 5000, 60_000, 10)));
    const handed = polls.flatMap((p) => p.delivered.map((d) => d.id));
    expect(handed.sort()).toEqual(ids.map((c) => c.id).sort());
  });

  it('expires commands without result and lists by host and state, newest first', async () => {
    store = await openFreshStore(kind);
    const old = command({ expires_ms: 5000, created_ms: 10 });
    const undelivered = command({ agent_instance_id: 'agent-z', expires_ms: 5000, created_ms: 20 });
    const fresh = command({ host_id: 'h2', expires_ms: 50_000, created_ms: 30 });
    for (const c of [old, undelivered, fresh]) await store.commands.insert(c);
    await store.commands.claimForAgent('agent-a', 'k', 1000, 60_000, 10);
    const polled = await store.commands.claimForAgent('agent-a', 'k', 6000, 60_000, 10);
    expect(polled.expired.map((c) => c.id)).toEqual([old.id]);
    const swept = await store.commands.expireDue(6000);
    expect(swept.map((c) => c.id)).toEqual([undelivered.id]);
    expect(await store.commands.complete(old.id, { keyId: 'k', agentInstanceId: null }, ok, 7000)).toMatchObject({ status: 'already_finished' });
    expect((await store.commands.list({ state: 'expired', limit: 10 })).map((c) => c.id)).toEqual([undelivered.id, old.id]);
    expect((await store.commands.list({ host_id: 'h2', limit: 10 })).map((c) => c.id)).toEqual([fresh.id]);
    expect((await store.commands.list({ limit: 10, before_ms: 30 })).map((c) => c.id)).toEqual([undelivered.id, old.id]);
  });
});
