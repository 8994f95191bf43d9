import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Renderer tests import .vue components; they pick happy-dom per file (`@vitest-environment`).
  plugins: [vue()],
  // The Electron preload is a .cts file (sandboxed preloads must be CommonJS).
  esbuild: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ['shared/src/**/*.test.ts', 'daemon/src/**/*.test.ts', 'test/**/*.test.ts', 'desktop/**/*.test.ts'],
    globalSetup: ['test/helpers/ferretdb.global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
