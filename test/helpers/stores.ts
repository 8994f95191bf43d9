import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
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
