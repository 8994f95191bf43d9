import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/stores.js';

const MAIN = path.resolve('dist/daemon/src/main.js');

/** Runs the built daemon entry point (npm test builds it first). */
function runMain(env: Record<string, string>, args: string[] = []) {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: run npm run build`);
  return spawn(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

  it('starts on the embedded store, keeps first-start secrets out of the JSON log stream, and stops on SIGTERM', async () => {
    const dataDir = tempDir();
    const child = runMain({ SAC_PORT: '0', SAC_DATA_DIR: dataDir, SAC_LOG_LEVEL: 'info' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start banner: ${stderr}`)), 20_000);
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        if (stderr.includes('initial-admin-password')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // The JSON log is written asynchronously: wait for its line about the files.
    await expect.poll(() => stdout, { timeout: 10_000 }).toContain('first-start secrets written');
    expect(stderr).toMatch(/SAC is running at http:\/\/127\.0\.0\.1:\d+\/ \(store: sqlite\)/);
    expect(stderr).toContain(`saved to ${path.join(dataDir, 'bootstrap-api-key')} (mode 0600)`);
    const key = readFileSync(path.join(dataDir, 'bootstrap-api-key'), 'utf8').trim();
    const password = readFileSync(path.join(dataDir, 'initial-admin-password'), 'utf8').trim();
    expect(key).toMatch(/^sac_[A-Za-z0-9]{40}$/);
    // stderr is a pipe here, not a terminal: the secrets are in the 0600 files only.
    for (const secret of [key, password]) {
      expect(stderr).not.toContain(secret);
      expect(stdout).not.toContain(secret);
    }
    for (const line of stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('the installed daemon\'s backup and restore commands refuse what they cannot do; an unknown command exits 2', async () => {
    const output = async (args: string[], env: Record<string, string>) => {
      const child = runMain(env, args);
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.stderr.on('data', (c: Buffer) => (text += c.toString()));
      const [code] = await once(child, 'exit');
      return { code, text };
    };
    const dataDir = tempDir();
    expect(await output(['backup', path.join(tempDir(), 'b1')], { SAC_DATA_DIR: dataDir })).toEqual({ code: 1, text: expect.stringContaining('No embedded store at') });
    expect(await output(['restore', path.join(tempDir(), 'none')], { SAC_DATA_DIR: path.join(tempDir(), 'data') })).toEqual({ code: 1, text: expect.stringContaining('is not a SAC backup') });
    expect(await output(['backup'], { SAC_DATA_DIR: dataDir })).toEqual({ code: 2, text: expect.stringContaining('usage: sac backup') });
    expect(await output(['vacuum'], { SAC_DATA_DIR: dataDir })).toEqual({ code: 2, text: expect.stringContaining('unknown command "vacuum"') });
  });
});
