import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/stores.js';

const MAIN = path.resolve('dist/daemon/src/main.js');

/** Runs the built daemon entry point (npm test builds it first). */
function runMain(env: Record<string, string>) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: run npm run build`);
  return spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('sac entry point', () => {
  it('prints every configuration problem and exits 1', async () => {
    const child = runMain({ SAC_PORT: 'eighty', SAC_LOG_LEVEL: 'loud', SAC_DATA_DIR: tempDir() });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('invalid configuration');
    expect(stderr).toContain('SAC_PORT');
    expect(stderr).toContain('SAC_LOG_LEVEL');
  });

  it('starts on the embedded store, prints the URL and the bootstrap key once, and stops on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = runMain({ SAC_PORT: '0', SAC_DATA_DIR: dataDir, SAC_LOG_LEVEL: 'warn' });
    let stdout = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start banner: ${stdout}`)), 20_000);
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        if (stdout.includes('saved to')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    expect(stdout).toMatch(/SAC is running at http:\/\/127\.0\.0\.1:\d+\/ \(store: sqlite\)/);
    expect(stdout).toMatch(/Bootstrap agent API key \(shown once\): sac_[A-Za-z0-9]{40}/);
    expect(stdout).toContain(path.join(dataDir, 'bootstrap-api-key'));
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
