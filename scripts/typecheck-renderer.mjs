// Type-checks the console renderer (DOM types, Bundler resolution) with vue-tsc.
// The renderer imports the daemon's AppRouter as a type, so vue-tsc also reads daemon sources, but
// under DOM types instead of Node's (fetch bodies, timers differ). Those files are checked where
// they belong, by tsconfig.json under Node types; here only diagnostics outside daemon/ count.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const vueTsc = require.resolve('vue-tsc/bin/vue-tsc.js');
const run = spawnSync(process.execPath, [vueTsc, '-p', 'desktop/renderer/tsconfig.json', '--pretty', 'false'], { encoding: 'utf8' });
const lines = `${run.stdout}${run.stderr}`.split('\n');
let ignored = 0;
const kept = [];
for (let i = 0; i < lines.length; i++) {
  const m = /^(\S[^(]*)\(\d+,\d+\): error /.exec(lines[i]);
  if (!m) continue;
  // Continuation lines (indented) belong to the diagnostic above them.
  let block = lines[i];
  while (i + 1 < lines.length && /^\s/.test(lines[i + 1])) block += `\n${lines[++i]}`;
  if (m[1].startsWith('daemon/')) ignored++;
  else kept.push(block);
}
if (kept.length > 0) {
  process.stderr.write(`${kept.join('\n')}\n\nrenderer type check: ${kept.length} error(s)\n`);
  process.exit(1);
}
if (run.status !== 0 && ignored === 0) {
  process.stderr.write(`${run.stdout}${run.stderr}\nvue-tsc failed\n`);
  process.exit(1);
}
process.stdout.write(`renderer type check: ok${ignored ? ` (${ignored} daemon-file diagnostic(s) under DOM types ignored; tsconfig.json checks those files)` : ''}\n`);
