import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BSON, MongoClient, type Document } from 'mongodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { MONGO_MIGRATIONS } from '../../daemon/src/store/mongo/mongo.migrations.js';
import { SQLITE_MIGRATIONS } from '../../daemon/src/store/sqlite/sqlite.migrations.js';
import { api, login } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { allEventIds } from '../helpers/read.js';
import { STORE_KINDS, tempDir, type StoreKind } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

/** Made by scripts/make-upgrade-fixture.ts from the first round's code (its commit is in the file). */
const FIXTURES = path.resolve('test/fixtures/upgrade');
interface Level {
  event_ids: string[];
  problem_ids: string[];
  hostnames: string[];
  migrations: number[];
}
const expected = JSON.parse(readFileSync(path.join(FIXTURES, 'round1.expected.json'), 'utf8')) as {
  masterKey: string;
  apiKey: string;
  adminPassword: string;
  user: { username: string; password: string; role: string };
  webhook: { url: string; secret: string };
} & Record<StoreKind, Level>;

/** Loads the round-1 MongoDB dump (indexes and EJSON documents) into a new database of the suite's FerretDB. */
async function loadMongoFixture(client: MongoClient, dbName: string): Promise<void> {
  const dump = BSON.EJSON.parse(readFileSync(path.join(FIXTURES, 'round1.mongo.json'), 'utf8'), { relaxed: false }) as Record<string, { indexes: Document[]; documents: Document[] }>;
  const db = client.db(dbName);
  for (const [name, { indexes, documents }] of Object.entries(dump)) {
    await db.createCollection(name);
    if (indexes.length > 0) await db.collection(name).createIndexes(indexes.map(({ key, name: n, unique }) => ({ key, name: n, ...(unique ? { unique } : {}) })));
    if (documents.length > 0) await db.collection(name).insertMany(documents);
  }
}

describe.each(STORE_KINDS)('a store of the first round upgrades to this code on %s', (kind) => {
  const client = new MongoClient(inject('mongoUri'), { serverSelectionTimeoutMS: 5000 });
  let t: TestSac | undefined;
  afterAll(async () => {
    await t?.close();
    await client.close();
  });

  it('applies every migration, loses nothing, and the console reads events, problems, hosts, users and settings', { timeout: 120_000 }, async () => {
    const old = expected[kind];
    const dataDir = tempDir();
    const env: Record<string, string> = { SAC_DATA_DIR: dataDir, SAC_MASTER_KEY: expected.masterKey, SAC_BOOTSTRAP_API_KEY: expected.apiKey };
    if (kind === 'sqlite') copyFileSync(path.join(FIXTURES, 'round1.sqlite'), path.join(dataDir, 'sac.sqlite'));
    else {
      env.SAC_MONGODB_URI = inject('mongoUri');
      env.SAC_MONGODB_DB = `sac_upgrade_${randomBytes(5).toString('hex')}`;
      await loadMongoFixture(client, env.SAC_MONGODB_DB);
    }
    t = await startTestSac(kind, env);

    const all = (kind === 'sqlite' ? SQLITE_MIGRATIONS : MONGO_MIGRATIONS).map((m) => m.id).sort((a, b) => a - b);
    expect(all.length).toBeGreaterThan(old.migrations.length);
    expect(await t.sac.store.appliedMigrations()).toEqual(all);

    const admin = await login(t, 'admin', expected.adminPassword);
    expect(admin.status).toBe(200);
    const token = admin.body.token as string;
    expect((await login(t, expected.user.username, expected.user.password)).status).toBe(200);

    expect([...(await allEventIds(t, token))].sort()).toEqual([...old.event_ids].sort());
    const problems = await api(t, 'GET', '/api/v1/problems?status=open,acknowledged,resolved&limit=500', { token });
    expect(problems.status).toBe(200);
    expect((problems.body.items as { id: string }[]).map((p) => p.id).sort()).toEqual(old.problem_ids);
    const hosts = await api(t, 'GET', '/api/v1/hosts', { token });
    expect((hosts.body.items as { hostname: string }[]).map((h) => h.hostname).sort()).toEqual(old.hostnames);
    const users = await api(t, 'GET', '/api/v1/users', { token });
    expect((users.body.users as { username: string; role: string }[]).map((u) => [u.username, u.role]).sort()).toEqual([
      ['admin', 'admin'],
      [expected.user.username, expected.user.role],
    ]);
    const webhook = await api(t, 'GET', '/api/v1/settings/webhook', { token });
    expect(webhook.body.values).toMatchObject({ url: expected.webhook.url, secret: { set: true } });
    expect((await t.sac.settings.get('webhook')).secret).toBe(expected.webhook.secret);
    expect((await api(t, 'GET', '/api/v1/settings/notification_policy', { token })).body.values.min_severity).toBe('warning');

    // The console's tRPC reads of the same data.
    const trpcEvents = await trpc(t, token, 'query', 'events.list', { limit: 500 });
    expect(trpcEvents.data.items).toHaveLength(old.event_ids.length);
    const trpcProblems = await trpc(t, token, 'query', 'problems.list', { status: ['open', 'acknowledged', 'resolved'], limit: 500 });
    expect(trpcProblems.data.items).toHaveLength(old.problem_ids.length);
    expect((await trpc(t, token, 'query', 'hosts.list')).data.items).toHaveLength(old.hostnames.length);
    expect((await trpc(t, token, 'query', 'dashboards.summary', { from: '2026-06-01T00:00:00Z', to: '2026-06-30T00:00:00Z' })).status).toBe(200);

    // The old agent key still ingests.
    expect((await postEvent(t.url, expected.apiKey, buildEvent())).status).toBe(201);
  });
});
