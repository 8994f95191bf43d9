import type { TestProject } from 'vitest/node';
import { startFerretDb, type FerretHandler } from '../../scripts/ferretdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    /** True in the project that runs the store contract suite again on FerretDB's SQLite handler only. */
    mongoOnly: boolean;
  }
}

/** The vitest project that re-runs test/store on FerretDB's SQLite handler (see vitest.config.ts). */
export const FERRET_SQLITE_PROJECT = 'store-on-ferretdb-sqlite';

/**
 * Starts FerretDB on loopback for the MongoDB store tests, exactly as ARCHITECTURE.md prescribes,
 * telemetry disabled: on a private PostgreSQL cluster (the realistic backend: indexes, pushdown)
 * for every test, and on its SQLite handler for the store contract suite's second run. A real
 * MongoDB can be used instead with SAC_TEST_MONGODB_URI. Never skipped: if neither is available
 * the run fails here, loudly.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const handler: FerretHandler = project.name === FERRET_SQLITE_PROJECT ? 'sqlite' : 'postgresql';
  project.provide('mongoOnly', handler === 'sqlite');
  if (process.env.SAC_TEST_MONGODB_URI) {
    project.provide('mongoUri', process.env.SAC_TEST_MONGODB_URI);
    return async () => undefined;
  }
  const ferret = await startFerretDb({ handler });
  process.stdout.write(`MongoDB store tests (${project.name || 'default'}): FerretDB v1.24.2 (${handler} handler) on ${ferret.uri}\n`);
  project.provide('mongoUri', ferret.uri);
  return () => ferret.stop();
}
