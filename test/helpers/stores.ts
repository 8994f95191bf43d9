import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, afterEach, beforeEach, inject } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { openStore, type Store } from '../../daemon/src/store/index.js';

export type StoreKind = 'sqlite' | 'mongodb';
/**
 * Both store adapters; contract and HTTP tests run once per entry. The project re-running the
 * store contract suite on FerretDB's PostgreSQL backend runs the MongoDB entry only.
 */
export const STORE_KINDS: readonly StoreKind[] = inject('mongoOnly') ? ['mongodb'] : ['sqlite', 'mongodb'];

export function tempDir(prefix = 'sac-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Environment selecting a fresh, isolated store of the given kind (new SQLite file or new database). */
export function storeEnv(kind: StoreKind, dataDir: string): Record<string, string> {
  if (kind === 'sqlite') return { SAC_DATA_DIR: dataDir };
  return {
    SAC_DATA_DIR: dataDir,
    SAC_MONGODB_URI: inject('mongoUri'),
    SAC_MONGODB_DB: `sac_test_${randomBytes(6).toString('hex')}`,
  };
}

/** Opens a fresh, empty, migrated store of `kind` through the real config loader. */
export async function openFreshStore(kind: StoreKind): Promise<Store> {
  const result = loadConfig(storeEnv(kind, tempDir()));
  if (!result.ok) throw new Error(result.problems.join('; '));
  return openStore(result.config.store);
}

/**
 * Several daemons' connections to one fresh store of `kind` (`open()` in a test; closed after each
 * test): `count` on MongoDB, one on SQLite, whose store is one daemon's. `on(i)` picks one in turn.
 */
export function daemonStoresPerTest(kind: StoreKind): { open(count: number): Promise<{ on(i: number): Store }> } {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  return {
    async open(count) {
      const result = loadConfig(storeEnv(kind, tempDir()));
      if (!result.ok) throw new Error(result.problems.join('; '));
      for (let i = 0; i < (kind === 'mongodb' ? count : 1); i++) stores.push(await openStore(result.config.store));
      return { on: (i: number) => stores[i % stores.length]! };
    },
  };
}

/**
 * For tests of the MongoDB adapter's parts on their own: a fresh database of the suite's FerretDB
 * before each test (`db()`), named `<prefix>_<random>`; the client closes after the file.
 */
export function freshMongoDbPerTest(prefix: string): { db(): Db } {
  const client = new MongoClient(inject('mongoUri'), { serverSelectionTimeoutMS: 5000 });
  let current: Db | null = null;
  beforeEach(() => {
    current = client.db(`${prefix}_${randomBytes(5).toString('hex')}`);
  });
  afterAll(async () => {
    await client.close();
  });
  return {
    db() {
      if (!current) throw new Error('freshMongoDbPerTest: no test is running');
      return current;
    },
  };
}
