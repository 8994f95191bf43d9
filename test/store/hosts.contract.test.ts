import path from 'node:path';
import Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { loadConfig } from '../../daemon/src/config.js';
import { openStore, type NewEvent, type Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { SQLITE_MIGRATIONS } from '../../daemon/src/store/sqlite/sqlite.migrations.js';
import { openSqliteStore } from '../../daemon/src/store/sqlite/sqlite.store.js';
import { openMongoStore } from '../../daemon/src/store/mongo/mongo.store.js';
import { openFreshStore, STORE_KINDS, storeEnv, tempDir } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T00:00:00Z');

function observed(hostname: string, instance: string | undefined, receivedMs: number, clientIp?: string): NewEvent {
  const payload = buildEvent({ host: { hostname }, source: { agent_instance_id: instance } });
  if (instance === undefined) delete payload.source.agent_instance_id;
  const parsed = parseEvent(payload);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const { event } = parsed;
  return {
    event,
    host: hostObservation(event, receivedMs, clientIp),
    occurred_ms: Date.parse(event.occurred_at),
    received_ms: receivedMs,
    actor_user: null,
    agent_version: event.source.product_version,
  };
}

async function hostIdOf(store: Store, item: NewEvent): Promise<string> {
  const [outcome] = await store.events.insertBatch([item]);
  if (outcome.status !== 'inserted') throw new Error('not inserted');
  return outcome.host_id;
}

describe.each(STORE_KINDS)('hosts contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('keeps the latest agent instance id; a late event or one without an id does not replace it', async () => {
    store = await openFreshStore(kind);
    const id = await hostIdOf(store, observed('RDS01', 'inst-a', T0));
    expect(await store.hosts.byId(id)).toMatchObject({ agent_instance_id: 'inst-a', ssh_admin_ok: null, ssh_admin_checked_at: null });

    await store.events.insertBatch([observed('RDS01', 'inst-b', T0 + 60_000)]);
    await store.events.insertBatch([observed('RDS01', 'inst-old', T0 - 60_000)]);
    await store.events.insertBatch([observed('RDS01', 'N/A', T0 + 120_000), observed('RDS01', undefined, T0 + 180_000)]);
    const host = await store.hosts.byId(id);
    expect(host?.agent_instance_id).toBe('inst-b');
    expect(host?.agent_instance_ids).toEqual(['inst-a', 'inst-b', 'inst-old']);
  });

  it('keeps the latest observed address without writing the host for an unchanged one, and pins and unpins apart from ingest', async () => {
    store = await openFreshStore(kind);
    const id = await hostIdOf(store, observed('WS-OBS', 'inst', T0, '10.0.0.5'));
    expect(await store.hosts.byId(id)).toMatchObject({ observed_ip: '10.0.0.5', pinned_address: null, pinned_winrm_name: null });
    await store.events.insertBatch([observed('WS-OBS', 'inst', T0 + 1_000, '10.0.0.6'), observed('WS-OBS', 'inst', T0 - 1_000, '10.0.0.1')]);
    expect((await store.hosts.byId(id))?.observed_ip).toBe('10.0.0.6');
    // An event without an address (not from the HTTP front) keeps the last one seen.
    await store.events.insertBatch([observed('WS-OBS', 'inst', T0 + 2_000)]);
    expect((await store.hosts.byId(id))?.observed_ip).toBe('10.0.0.6');

    expect(await store.hosts.setPin(id, { address: '10.0.0.20', winrm_name: 'ws-obs.corp.example' })).toBe(true);
    await store.events.insertBatch([observed('WS-OBS', 'inst', T0 + 60_000, '10.0.0.7')]);
    expect(await store.hosts.byId(id)).toMatchObject({ observed_ip: '10.0.0.7', pinned_address: '10.0.0.20', pinned_winrm_name: 'ws-obs.corp.example' });
    expect(await store.hosts.setPin(id, null)).toBe(true);
    expect(await store.hosts.byId(id)).toMatchObject({ pinned_address: null, pinned_winrm_name: null });
    expect(await store.hosts.setPin('missing', null)).toBe(false);
  });

  it('files a deleted host’s next events under a new host once its refresh is due, also when another connection deleted it', async () => {
    // On MongoDB each daemon keeps the hosts it ingests for; another daemon's deletion is noticed
    // at the next last-seen refresh (10 s there), whose write matches nothing.
    const config = loadConfig(storeEnv(kind, tempDir()));
    if (!config.ok) throw new Error(config.problems.join('; '));
    store = await openStore(config.config.store);
    const other = await openStore(config.config.store);
    try {
      const first = await hostIdOf(store, observed('RDS09', 'inst-9', T0));
      expect(await other.hosts.delete(first)).toBe(true);
      const second = await hostIdOf(store, observed('RDS09', 'inst-9', T0 + 11_000));
      expect(second).not.toBe(first);
      expect(await other.hosts.byId(first)).toBeNull();
      expect(await other.hosts.byId(second)).toMatchObject({ hostname: 'RDS09', first_seen_ms: T0 + 11_000, last_seen_ms: T0 + 11_000 });
      // Widening a host (a new agent instance) reads it first: the store's list, not a copy's, is appended to.
      await hostIdOf(other, observed('RDS09', 'inst-10', T0 + 12_000));
      await hostIdOf(store, observed('RDS09', 'inst-10', T0 + 13_000));
      expect((await other.hosts.byId(second))!.agent_instance_ids).toEqual(['inst-9', 'inst-10']);
    } finally {
      await other.close();
    }
  });

  it('finds a host by its latest agent instance id, the most recently seen when several share it', async () => {
    store = await openFreshStore(kind);
    const old = await hostIdOf(store, observed('WS-OLD', 'inst-1', T0));
    expect((await store.hosts.hostByAgentInstance('inst-1'))?.id).toBe(old);
    // The same installation renamed: the host under the new name is seen later.
    const renamed = await hostIdOf(store, observed('WS-NEW', 'inst-1', T0 + 60_000));
    expect(renamed).not.toBe(old);
    expect((await store.hosts.hostByAgentInstance('inst-1'))?.id).toBe(renamed);
    // An instance id that is no longer any host's latest one no longer finds it.
    await store.events.insertBatch([observed('WS-OLD', 'inst-2', T0 + 120_000), observed('WS-NEW', 'inst-3', T0 + 120_000)]);
    expect((await store.hosts.hostByAgentInstance('inst-2'))?.id).toBe(old);
    expect(await store.hosts.hostByAgentInstance('inst-1')).toBeNull();
    expect(await store.hosts.hostByAgentInstance('unknown')).toBeNull();
  });

  it('records the SSH administrator access probe result and keeps it across ingest', async () => {
    store = await openFreshStore(kind);
    const id = await hostIdOf(store, observed('SRV1', 'inst-s', T0));
    expect(await store.hosts.setSshAdminOk(id, true, T0 + 1_000)).toBe(true);
    expect(await store.hosts.byId(id)).toMatchObject({ ssh_admin_ok: true, ssh_admin_checked_at: T0 + 1_000 });

    await store.events.insertBatch([observed('SRV1', 'inst-s2', T0 + 10_000)]);
    expect(await store.hosts.byId(id)).toMatchObject({ ssh_admin_ok: true, ssh_admin_checked_at: T0 + 1_000, agent_instance_id: 'inst-s2' });

    expect(await store.hosts.setSshAdminOk(id, false, T0 + 20_000)).toBe(true);
    const listed = (await store.hosts.list()).find((h) => h.id === id);
    expect(listed).toMatchObject({ ssh_admin_ok: false, ssh_admin_checked_at: T0 + 20_000 });
    expect(await store.hosts.setSshAdminOk('no-such-host', true, T0)).toBe(false);
  });
});

describe('migration 17 on hosts stored before it', () => {
  it('SQLite: takes the latest agent instance id from the list, probe result unknown', async () => {
    const file = path.join(tempDir(), 'sac.sqlite');
    const db = new Database(file);
    db.exec('CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ms INTEGER NOT NULL)');
    for (const m of [...SQLITE_MIGRATIONS].filter((m) => m.id < 17).sort((a, b) => a.id - b.id)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, 0)').run(m.id, m.name);
    }
    db.prepare(`INSERT INTO hosts (id, key, hostname, os_family, agent_product, agent_version, agent_instance_ids, first_seen_ms, last_seen_ms)
      VALUES ('h1', 'rds01|windows', 'RDS01', 'windows', 'rdp-login-monitor', '2.1.7-SAC', '["old","latest"]', 1, 2),
             ('h2', 'web|linux', 'web', 'linux', 'ssh-monitor', '1.1.2-ipset', '[]', 1, 2)`).run();
    db.close();
    const store = openSqliteStore(file);
    try {
      expect(await store.appliedMigrations()).toContain(17);
      expect(await store.hosts.byId('h1')).toMatchObject({ agent_instance_id: 'latest', ssh_admin_ok: null, ssh_admin_checked_at: null });
      expect(await store.hosts.byId('h2')).toMatchObject({ agent_instance_id: null, ssh_admin_ok: null });
      expect((await store.hosts.hostByAgentInstance('latest'))?.id).toBe('h1');
    } finally {
      await store.close();
    }
  });

  it('MongoDB: backfills hosts that lack the new fields', async () => {
    const uri = inject('mongoUri');
    const dbName = `sac_m17_${Date.now().toString(36)}`;
    const store = await openMongoStore(uri, dbName);
    const client = new MongoClient(uri);
    try {
      await store.migrate();
      const db = client.db(dbName);
      await db.collection('hosts').insertOne({
        id: 'h1', key: 'rds01|windows', hostname: 'RDS01', os_family: 'windows', display_name: null, fqdn: null, ipv4: null, ips: [],
        os_version: null, timezone: null, agent_product: 'rdp-login-monitor', agent_version: '2.1.7-SAC',
        agent_instance_ids: ['old', 'latest'], first_seen_ms: 1, last_seen_ms: 2,
      });
      await db.collection('schema_migrations').deleteOne({ _id: 17 as never });
      expect(await store.migrate()).toEqual([17]);
      expect(await store.hosts.byId('h1')).toMatchObject({ agent_instance_id: 'latest', ssh_admin_ok: null, ssh_admin_checked_at: null });
      expect((await store.hosts.hostByAgentInstance('latest'))?.id).toBe('h1');
    } finally {
      await client.close();
      await store.close();
    }
  });
});
