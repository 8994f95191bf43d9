import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { openStore } from '../../daemon/src/store/index.js';
import { tempDir } from '../helpers/stores.js';

const base = inject('mongoUri').replace(/\/?$/, '/');
const client = new MongoClient(base, { serverSelectionTimeoutMS: 5000 });
const fresh = () => `sac_uri_${randomBytes(5).toString('hex')}`;

async function migrationsIn(db: string): Promise<number> {
  return client.db(db).collection('schema_migrations').countDocuments();
}

async function openWith(env: Record<string, string>) {
  const result = loadConfig({ SAC_DATA_DIR: tempDir(), ...env });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return openStore(result.config.store);
}

describe('MongoDB database name (FerretDB)', () => {
  afterAll(async () => {
    await client.close();
  });

  it('uses the database named in the path of SAC_MONGODB_URI', async () => {
    const db = fresh();
    const store = await openWith({ SAC_MONGODB_URI: `${base}${db}?serverSelectionTimeoutMS=5000` });
    try {
      expect(await migrationsIn(db)).toBe((await store.appliedMigrations()).length);
      expect(await migrationsIn(db)).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('lets SAC_MONGODB_DB override the database in the URI', async () => {
    const inUri = fresh();
    const override = fresh();
    const store = await openWith({ SAC_MONGODB_URI: `${base}${inUri}`, SAC_MONGODB_DB: override });
    try {
      expect(await migrationsIn(override)).toBeGreaterThan(0);
      expect(await migrationsIn(inUri)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
