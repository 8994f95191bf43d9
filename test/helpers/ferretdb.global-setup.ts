import type { TestProject } from 'vitest/node';
import { startFerretDb } from '../../scripts/ferretdb.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
  }
}

/**
 * Starts FerretDB (SQLite handler) on loopback for the MongoDB store tests, exactly as
 * ARCHITECTURE.md prescribes, telemetry disabled. A real MongoDB can be used instead with
 * SAC_TEST_MONGODB_URI. Never skipped: if neither is available the run fails here, loudly.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.SAC_TEST_MONGODB_URI) {
    project.provide('mongoUri', process.env.SAC_TEST_MONGODB_URI);
    return async () => undefined;
  }
  const ferret = await startFerretDb();
  process.stdout.write(`MongoDB store tests: FerretDB v1.24.2 (sqlite handler) on ${ferret.uri}\n`);
  project.provide('mongoUri', ferret.uri);
  return () => ferret.stop();
}
