import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

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
    // Everything runs with FerretDB on PostgreSQL; the store contract suite runs a second time on
    // FerretDB's SQLite handler (MongoDB entries only), the other backend the store must work on.
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          globalSetup: ['test/helpers/ferretdb.global-setup.ts'],
          include: ['shared/src/**/*.test.ts', 'daemon/src/**/*.test.ts', 'test/**/*.test.ts', 'desktop/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'store-on-ferretdb-sqlite',
          globalSetup: ['test/helpers/ferretdb.global-setup.ts'],
          include: ['test/store/**/*.test.ts'],
        },
      },
    ],
  },
});
