import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console's one build. `base: './'` keeps asset URLs relative to the `<base href>` of
 * index.html, which the daemon rewrites when it runs under SAC_BASE_PATH and the Electron shell
 * serves as `/`. Everything is bundled: the app never loads fonts, scripts or styles from elsewhere.
 */
export default defineConfig({
  root,
  base: './',
  plugins: [vue()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // zod's sources carry /* @__PURE__ */ comments in spots Rollup cannot use: harmless, not worth a warning per build.
      onwarn: (warning, warn) => (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/zod/') ? undefined : warn(warning)),
      output: {
        manualChunks: (id) => (id.includes('node_modules/echarts') || id.includes('node_modules/zrender') ? 'charts' : undefined),
      },
    },
  },
});
