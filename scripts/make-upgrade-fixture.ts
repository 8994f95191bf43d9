/**
 * Builds the fixtures of test/integration/upgrade.http.test.ts: the store of the first round's
 * code (commit ROUND1, the last before round-2 work), filled through that code's own HTTP API, on
 * both adapters. Run once, from the repository root: `npx tsx scripts/make-upgrade-fixture.ts`.
 *
 * It checks the old commit out in a temporary git worktree (node_modules linked from this
 * checkout), starts its daemon on an embedded store and on a fresh database of a FerretDB started
 * here, posts events (some open problems) for several hosts, creates a user and stores settings
 * with a secret, stops it, and writes:
 *   test/fixtures/upgrade/round1.sqlite          the SQLite database file
 *   test/fixtures/upgrade/round1.mongo.json      every collection (EJSON documents and indexes)
 *   test/fixtures/upgrade/round1.expected.json   what the test must find (ids, names, credentials)
 * The secrets in them are test-only (a fixed master key the test passes as SAC_MASTER_KEY).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { BSON, MongoClient } from 'mongodb';
import pino from 'pino';
import { startFerretDb } from './ferretdb.js';

const ROUND1 = 'da250ea6c451601cdf588130e1ad4b60bdfeabba';
const OUT = path.resolve('test/fixtures/upgrade');
/** Test-only credentials, also written to round1.expected.json. */
const FIXTURE = {
  masterKey: 'upgrade-fixture-master-key-test-only-0123456789',
  apiKey: 'sac_upgradeFixtureTestOnlyKey0123456789abcd',
  adminPassword: 'Upgrade-fixture-first-pw-1',
  user: { username: 'night-operator', password: 'Upgrade-fixture-user-pw-2', role: 'monitor' },
  webhook: { url: 'http://127.0.0.1:9/fixture-hook', secret: 'upgrade-fixture-webhook-secret' },
};
const HOSTS = ['RDS01', 'RDS02', 'FS01'];

interface Round1 {
  loadConfig(env: Record<string, string>): { ok: true; config: unknown } | { ok: false; problems: string[] };
  startSac(config: unknown, opts: { logger: pino.Logger }): Promise<{ url: string; close(): Promise<void> }>;
}

async function call(url: string, method: string, route: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Fills a running round-1 daemon through its API; answers the event ids it acknowledged. */
async function fill(url: string, fixtureEvents: Record<string, any>[]): Promise<string[]> {
  const ids: string[] = [];
  const post = async (event: Record<string, any>) => {
    const e = { ...event, event_id: randomUUID() };
    await call(url, 'POST', '/api/v1/events', e, FIXTURE.apiKey);
    ids.push(e.event_id);
  };
  for (const event of fixtureEvents) await post(event);
  // A burst of failed sign-ins per host: enough for the brute-force problems.
  for (const [h, hostname] of HOSTS.entries()) {
    for (let i = 0; i < 12; i++) {
      const base = fixtureEvents[0];
      await post({
        ...base,
        occurred_at: new Date(Date.parse('2026-11-20T09:00:00Z') + h * 3_600_000 + i * 5_000).toISOString(),
        host: { ...base.host, hostname, display_name: hostname, ipv4: `10.0.0.${30 + h}` },
        details: { ...base.details, ip_address: `203.0.113.${10 + h}` },
      });
    }
  }
  const { token } = await call(url, 'POST', '/api/v1/auth/login', { username: 'admin', password: FIXTURE.adminPassword });
  await call(url, 'POST', '/api/v1/users', FIXTURE.user, token);
  await call(url, 'PATCH', '/api/v1/settings/webhook', FIXTURE.webhook, token);
  await call(url, 'PATCH', '/api/v1/settings/notification_policy', { min_severity: 'warning' }, token);
  return ids;
}

async function run(round1: Round1, env: Record<string, string>, fixtureEvents: Record<string, any>[]): Promise<string[]> {
  const parsed = round1.loadConfig({
    SAC_PORT: '0',
    SAC_LOG_LEVEL: 'warn',
    SAC_MASTER_KEY: FIXTURE.masterKey,
    SAC_BOOTSTRAP_API_KEY: FIXTURE.apiKey,
    SAC_ADMIN_PASSWORD: FIXTURE.adminPassword,
    ...env,
  });
  if (!parsed.ok) throw new Error(parsed.problems.join('; '));
  const sac = await round1.startSac(parsed.config, { logger: pino({ level: 'warn' }) });
  try {
    return await fill(sac.url, fixtureEvents);
  } finally {
    await sac.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'sac-round1-'));
  const tree = path.join(work, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', tree, ROUND1], { stdio: 'inherit' });
  const ferret = await startFerretDb({ logLevel: 'error' });
  try {
    symlinkSync(realpathSync('node_modules'), path.join(tree, 'node_modules'));
    const round1: Round1 = {
      ...(await import(path.join(tree, 'daemon/src/config.ts'))),
      ...(await import(path.join(tree, 'daemon/src/sac.ts'))),
    };
    const fixtureEvents = readFileSync(path.join(tree, 'test/fixtures/agent-events.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, any>);

    const dataDir = path.join(work, 'data');
    const sqliteIds = await run(round1, { SAC_DATA_DIR: dataDir }, fixtureEvents);
    const db = new Database(path.join(dataDir, 'sac.sqlite'), { readonly: true });
    const sqlite = {
      event_ids: sqliteIds,
      problem_ids: (db.prepare('SELECT id FROM problems ORDER BY id').all() as { id: string }[]).map((r) => r.id),
      hostnames: (db.prepare('SELECT hostname FROM hosts ORDER BY hostname').all() as { hostname: string }[]).map((r) => r.hostname),
      migrations: (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id),
    };
    db.close();
    copyFileSync(path.join(dataDir, 'sac.sqlite'), path.join(OUT, 'round1.sqlite'));

    const dbName = 'sac_round1';
    const mongoIds = await run(round1, { SAC_DATA_DIR: path.join(work, 'data-mongo'), SAC_MONGODB_URI: ferret.uri, SAC_MONGODB_DB: dbName }, fixtureEvents);
    const client = await MongoClient.connect(ferret.uri);
    const mdb = client.db(dbName);
    const collections: Record<string, { indexes: unknown[]; documents: unknown[] }> = {};
    for (const { name } of (await mdb.listCollections().toArray()).sort((a, b) => a.name.localeCompare(b.name))) {
      const indexes = (await mdb.collection(name).listIndexes().toArray()).filter((i) => i.name !== '_id_').map(({ key, name: n, unique }) => ({ key, name: n, ...(unique ? { unique } : {}) }));
      collections[name] = { indexes, documents: await mdb.collection(name).find().sort({ _id: 1 }).toArray() };
    }
    const mongo = {
      event_ids: mongoIds,
      problem_ids: (collections.problems?.documents ?? []).map((d) => (d as { id: string }).id).sort(),
      hostnames: (collections.hosts?.documents ?? []).map((d) => (d as { hostname: string }).hostname).sort(),
      migrations: (collections.schema_migrations?.documents ?? []).map((d) => (d as { _id: number })._id).sort((a, b) => a - b),
    };
    await client.close();
    writeFileSync(path.join(OUT, 'round1.mongo.json'), `${BSON.EJSON.stringify(collections, { relaxed: false })}\n`);
    writeFileSync(path.join(OUT, 'round1.expected.json'), `${JSON.stringify({ commit: ROUND1, ...FIXTURE, sqlite, mongodb: mongo }, null, 2)}\n`);
  } finally {
    await ferret.stop();
    execFileSync('git', ['worktree', 'remove', '--force', tree]);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
