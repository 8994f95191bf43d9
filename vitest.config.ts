import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

/** Tests that need FerretDB on PostgreSQL (several daemons on one store) run only in that project. */
const POSTGRESQL_ONLY = ['test/integration/multi-daemon.test.ts'];

export default defineConfig({
  // Renderer tests import .vue components; they pick happy-dom per file (`@vitest-environment`).
  plugins: [vue()],
  // The Electron preload is a .cts file (sandboxed preloads must be CommonJS).
  esbuild: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // Everything runs with FerretDB's SQLite handler; the store contract suite runs a second time
    // (MongoDB entries only) on FerretDB's PostgreSQL backend, with the multi-daemon test.
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          globalSetup: ['test/helpers/ferretdb.global-setup.ts'],
          include: ['shared/src/**/*.test.ts', 'daemon/src/**/*.test.ts', 'test/**/*.test.ts', 'desktop/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...POSTGRESQL_ONLY],
        },
      },
      {
        extends: true,
        test: {
          name: 'ferretdb-postgresql',
          globalSetup: ['test/helpers/ferretdb.global-setup.ts'],
          // Every document write is a PostgreSQL transaction: the contract suite's 100-way races
          // take several times longer here than on the SQLite handler, more on a busy machine.
          testTimeout: 90_000,
          include: ['test/store/**/*.test.ts', ...POSTGRESQL_ONLY],
        },
      },
    ],
  },
});
