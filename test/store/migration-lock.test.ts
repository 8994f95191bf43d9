import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { MONGO_MIGRATIONS } from '../../daemon/src/store/mongo/mongo.migrations.js';
import { openMongoStore } from '../../daemon/src/store/mongo/mongo.store.js';
import { startTestSac } from '../helpers/daemon.js';
import { tempDir } from '../helpers/stores.js';

describe('MongoDB migrations run once when daemons start together', () => {
  const client = new MongoClient(inject('mongoUri'), { serverSelectionTimeoutMS: 5000 });
  afterAll(() => client.close());

  it('two stores migrating one fresh database at once: each step runs once, is recorded once, and both open', async () => {
    const dbName = `sac_miglock_${randomBytes(5).toString('hex')}`;
    const runs = new Map<number, number>();
    // The real migrations, counted: the observable effect of a step running.
    const counted = MONGO_MIGRATIONS.map((m) => ({
      ...m,
      up: async (db: Parameters<typeof m.up>[0]) => {
        runs.set(m.id, (runs.get(m.id) ?? 0) + 1);
        await m.up(db);
      },
    }));
    const [a, b] = await Promise.all([openMongoStore(inject('mongoUri'), dbName, counted), openMongoStore(inject('mongoUri'), dbName, counted)]);
    try {
      const [appliedA, appliedB] = await Promise.all([a.migrate(), b.migrate()]);
      const ids = MONGO_MIGRATIONS.map((m) => m.id).sort((x, y) => x - y);
      expect([...appliedA, ...appliedB].sort((x, y) => x - y)).toEqual(ids);
      expect(ids.filter((id) => runs.get(id) !== 1)).toEqual([]);
      const records = await client.db(dbName).collection('schema_migrations').find().toArray();
      expect(records.map((r) => r._id).sort((x, y) => Number(x) - Number(y))).toEqual(ids);
      expect(await a.appliedMigrations()).toEqual(ids);
      // Nothing left to do: a later start takes no lock and runs nothing.
      expect(await b.migrate()).toEqual([]);
      expect(await client.db(dbName).collection('locks').countDocuments()).toBe(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('two daemons started together on one fresh database both come up with every migration recorded once', async () => {
    const env = { SAC_MONGODB_URI: inject('mongoUri'), SAC_MONGODB_DB: `sac_miglock_${randomBytes(5).toString('hex')}`, SAC_BOOTSTRAP_API_KEY: `k_${randomBytes(16).toString('hex')}`, SAC_MASTER_KEY: randomBytes(32).toString('hex') };
    const daemons = await Promise.all([startTestSac('mongodb', { ...env, SAC_DATA_DIR: tempDir() }), startTestSac('mongodb', { ...env, SAC_DATA_DIR: tempDir() })]);
    try {
      for (const d of daemons) expect((await fetch(`${d.url}/health`)).status).toBe(200);
      const records = await client.db(env.SAC_MONGODB_DB).collection('schema_migrations').find().toArray();
      expect(records.length).toBe(MONGO_MIGRATIONS.length);
      expect(new Set(records.map((r) => r._id)).size).toBe(MONGO_MIGRATIONS.length);
    } finally {
      await Promise.all(daemons.map((d) => d.close()));
    }
  });
});
