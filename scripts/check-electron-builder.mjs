// Checks electron-builder.yml against electron-builder's own schema and checks that the files it
// packages exist, without packaging (that needs the Electron binary, which this machine cannot download).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');
const { DebugLogger } = require('builder-util/out/DebugLogger.js');

const config = await getConfig(root, path.join(root, 'electron-builder.yml'), null);
await validateConfiguration(config, new DebugLogger(false));

const needed = [config.extraMetadata.main, 'dist/desktop/preload/preload.cjs', 'desktop/renderer/dist/index.html'];
const missing = needed.filter((f) => !existsSync(path.join(root, f)));
if (missing.length > 0) {
  process.stderr.write(`electron-builder.yml: missing build outputs: ${missing.join(', ')} (run npm run build:desktop)\n`);
  process.exit(1);
}
const targets = ['linux', 'win', 'mac'].map((p) => `${p}: ${[].concat(config[p].target).join(', ')}`).join('; ');
process.stdout.write(`electron-builder.yml is valid (${targets}); package with: npx electron-builder --linux|--win|--mac\n`);
