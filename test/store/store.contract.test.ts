import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent, type Event } from '../../shared/src/index.js';
import { loadConfig } from '../../daemon/src/config.js';
import { hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { NewEvent, Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { openFreshStore, STORE_KINDS, tempDir } from '../helpers/stores.js';

function newEvent(overrides: Parameters<typeof buildEvent>[0] = {}, receivedMs = Date.parse('2026-06-03T00:00:00Z')): NewEvent {
  const parsed = parseEvent(buildEvent(overrides));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const event: Event = parsed.event;
  return {
    event,
    host: hostObservation(event, receivedMs),
    occurred_ms: Date.parse(event.occurred_at),
    received_ms: receivedMs,
    actor_user: 'administrator',
    agent_version: event.source.product_version,
  };
}

describe.each(STORE_KINDS)('store contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('records migrations and applies them once', async () => {
    store = await openFreshStore(kind);
    const applied = await store.appliedMigrations();
    expect(applied.length).toBeGreaterThan(0);
    expect(applied[0]).toBe(1);
    expect(await store.migrate()).toEqual([]);
    expect(await store.appliedMigrations()).toEqual(applied);
  });

  it('stores 50 parallel inserts of one event_id exactly once', async () => {
    store = await openFreshStore(kind);
    const item = newEvent();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => store.events.insertBatch([item])));
    const statuses = outcomes.map((o) => o[0].status);
    expect(statuses.filter((s) => s === 'inserted')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'duplicate')).toHaveLength(49);
    expect(await store.events.count()).toBe(1);
  });

  it('maps duplicates inside one batch back to their positions', async () => {
    store = await openFreshStore(kind);
    const a = newEvent();
    const b = newEvent();
    await store.events.insertBatch([a]);
    const outcomes = await store.events.insertBatch([a, b, b]);
    expect(outcomes.map((o) => o.status)).toEqual(['duplicate', 'inserted', 'duplicate']);
    expect(await store.events.count()).toBe(2);
  });

  it('links events to one host per lower-cased hostname and OS family, keeping the latest fields', async () => {
    store = await openFreshStore(kind);
    const t0 = Date.parse('2026-06-03T00:00:00Z');
    const first = newEvent({ host: { hostname: 'RDS01', display_name: 'RDS01 (10.0.0.21)', ipv4: '10.0.0.21' } }, t0);
    const second = newEvent(
      {
        host: { hostname: 'rds01', display_name: 'RDS01 (10.0.0.99)', ipv4: '10.0.0.99' },
        source: { product: 'rdp-login-monitor', product_version: '2.1.8-SAC', agent_instance_id: 'other-instance' },
      },
      t0 + 60_000,
    );
    const linux = newEvent({ host: { hostname: 'RDS01', os_family: 'linux' } }, t0);
    const [o1] = await store.events.insertBatch([first]);
    const [o2, o3] = await store.events.insertBatch([second, linux]);
    if (o1.status !== 'inserted' || o2.status !== 'inserted' || o3.status !== 'inserted') throw new Error('not inserted');
    expect(o2.host_id).toBe(o1.host_id);
    expect(o3.host_id).not.toBe(o1.host_id);

    const host = await store.hosts.byId(o1.host_id);
    expect(host).toMatchObject({
      key: 'rds01|windows',
      hostname: 'rds01',
      display_name: 'RDS01 (10.0.0.99)',
      ipv4: '10.0.0.99',
      agent_product: 'rdp-login-monitor',
      agent_version: '2.1.8-SAC',
      first_seen_ms: t0,
      last_seen_ms: t0 + 60_000,
    });
    expect(host?.ips).toEqual(['10.0.0.21', '10.0.0.99']);
    expect(host?.agent_instance_ids).toEqual(['6c1d2f0a-7b3e-4f59-a8d2-0e4b9c7f1a23', 'other-instance']);

    // An older, late event widens first_seen but does not overwrite newer descriptive fields.
    await store.events.insertBatch([newEvent({ host: { hostname: 'RDS01', display_name: 'old name', ipv4: 'N/A' } }, t0 - 60_000)]);
    const after = await store.hosts.byId(o1.host_id);
    expect(after).toMatchObject({ display_name: 'RDS01 (10.0.0.99)', ipv4: '10.0.0.99', first_seen_ms: t0 - 60_000, last_seen_ms: t0 + 60_000 });
    expect((await store.hosts.list()).map((h) => h.key)).toEqual(['rds01|linux', 'rds01|windows']);
  });

  it('returns a stored event by id with its derived fields', async () => {
    store = await openFreshStore(kind);
    const item = newEvent({ type: 'rdp.bruteforce.burst', severity: 'high' });
    const [outcome] = await store.events.insertBatch([item]);
    const stored = await store.events.byId(item.event.event_id.toUpperCase());
    expect(stored).toMatchObject({
      event_id: item.event.event_id,
      host_id: outcome.status === 'inserted' ? outcome.host_id : '',
      type: 'rdp.bruteforce.burst',
      severity: 'high',
      occurred_at: item.event.occurred_at,
      actor_user: 'administrator',
      agent_version: '2.1.7-SAC',
      event: item.event,
    });
    expect(await store.events.byId('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  it('keeps agent API keys by hash, records use and revocation', async () => {
    store = await openFreshStore(kind);
    const record = {
      id: 'k1',
      prefix: 'sac_abcdefgh',
      hash: 'f'.repeat(64),
      label: 'test',
      bound_hostname: null,
      bound_instance_id: null,
      on_mismatch: 'refuse' as const,
      created_ms: 1,
      last_used_ms: null,
      revoked_ms: null,
    };
    await store.apiKeys.insert(record);
    expect(await store.apiKeys.byHash(record.hash)).toEqual(record);
    await store.apiKeys.touchMany([{ id: 'k1', at_ms: 50 }]);
    await store.apiKeys.touchMany([{ id: 'k1', at_ms: 40 }, { id: 'missing', at_ms: 45 }]);
    expect((await store.apiKeys.byHash(record.hash))?.last_used_ms).toBe(50);
    expect(await store.apiKeys.revoke('k1', 60)).toBe(true);
    expect(await store.apiKeys.revoke('k1', 70)).toBe(false);
    expect((await store.apiKeys.list()).map((k) => k.revoked_ms)).toEqual([60]);
    await expect(store.apiKeys.insert({ ...record, id: 'k2' })).rejects.toThrow();
    const bound = { ...record, id: 'k3', hash: 'e'.repeat(64), bound_hostname: 'rds01', bound_instance_id: 'inst-1', on_mismatch: 'flag' as const };
    await store.apiKeys.insert(bound);
    expect(await store.apiKeys.byHash(bound.hash)).toEqual(bound);
  });

  it('records once which agent installations a key sent events for, also when daemons record the same pair at once', async () => {
    store = await openFreshStore(kind);
    const pair = { key_id: 'k1', agent_instance_id: 'inst-1', hostname: 'rds01', first_ms: 1 };
    expect(await store.apiKeys.spokeFor('k1', 'inst-1')).toBe(false);
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.apiKeys.recordAgent({ ...pair, first_ms: 1 + i })));
    await store.apiKeys.recordAgent(pair);
    expect(await store.apiKeys.spokeFor('k1', 'inst-1')).toBe(true);
    expect(await store.apiKeys.spokeFor('k1', 'inst-2')).toBe(false);
    expect(await store.apiKeys.spokeFor('k2', 'inst-1')).toBe(false);
  });
});

it('puts the embedded store in the data dir', () => {
  const dir = tempDir();
  const result = loadConfig({ SAC_DATA_DIR: dir });
  expect(result.ok && result.config.store).toEqual({ kind: 'sqlite', file: path.join(dir, 'sac.sqlite') });
});
