import type { TestProject } from 'vitest/node';
import { startFerretDb, type FerretHandler } from '../../scripts/ferretdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    /** True in the project that runs the store contract suite again on FerretDB's PostgreSQL backend. */
    mongoOnly: boolean;
  }
}

/** The vitest project that re-runs test/store (and runs the multi-daemon test) on FerretDB/PostgreSQL (vitest.config.ts). */
export const FERRET_POSTGRESQL_PROJECT = 'ferretdb-postgresql';

/**
 * Starts FerretDB on loopback for the MongoDB store tests, exactly as ARCHITECTURE.md prescribes,
 * telemetry disabled: its SQLite handler for every test, and its PostgreSQL backend (a private
 * cluster, scripts/postgres.ts — the realistic backend: indexes, pushdown) for the store contract
 * suite's second run and the multi-daemon test. A real MongoDB can be used instead with
 * SAC_TEST_MONGODB_URI. Never skipped: if neither is available the run fails here, loudly.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const handler: FerretHandler = project.name === FERRET_POSTGRESQL_PROJECT ? 'postgresql' : 'sqlite';
  project.provide('mongoOnly', handler === 'postgresql');
  if (process.env.SAC_TEST_MONGODB_URI) {
    project.provide('mongoUri', process.env.SAC_TEST_MONGODB_URI);
    return async () => undefined;
  }
  const ferret = await startFerretDb({ handler });
  process.stdout.write(`MongoDB store tests (${project.name || 'default'}): FerretDB v1.24.2 (${handler} handler) on ${ferret.uri}\n`);
  project.provide('mongoUri', ferret.uri);
  return () => ferret.stop();
}
