import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';

// The stand-in counts as WinRM only if a real third-party client (pywinrm) works through it.
const run = promisify(execFile);
const CHECK = join(import.meta.dirname, '../peers/winrm/pywinrm_check.py');

let peer: WinRmPeer | null = null;
afterEach(async () => {
  await peer?.stop();
  peer = null;
});

interface CheckResult {
  before: { stdout: string; exit: number };
  logoff: { stdout: string; exit: number };
  after: { stdout: string; exit: number };
  wrong_password: string;
  encrypted: boolean;
}

async function pywinrm(endpoint: string, sessionId: number, codepage: number): Promise<CheckResult> {
  const { stdout } = await run('python3', [CHECK, endpoint, 'CORP\\admin', 'Adm1n-pass', String(sessionId), String(codepage)], { timeout: 60_000 });
  return JSON.parse(stdout) as CheckResult;
}

describe('pywinrm against the WS-Management stand-in', () => {
  it('lists sessions and logs one off over HTTP with NTLM message encryption', async () => {
    peer = await startWinRmPeer({ user: 'CORP\\admin', password: 'Adm1n-pass' });
    const res = await pywinrm(`http://127.0.0.1:${peer.port}/wsman`, 2, 437);
    expect(res.encrypted).toBe(true);
    expect(res.before.exit).toBe(0);
    expect(res.before.stdout).toMatch(/SESSIONNAME\s+USERNAME\s+ID\s+STATE/);
    expect(res.before.stdout).toMatch(/rdp-tcp#12\s+jdoe\s+2\s+Active/);
    expect(res.logoff).toMatchObject({ exit: 0, stdout: 'Logging off session ID 2\r\n' });
    expect(res.after.stdout).not.toMatch(/jdoe/);
    expect(res.after.stdout).toMatch(/alice\s+4\s+Disc/);
    expect(res.wrong_password).toBe('rejected');
  }, 90_000);

  it('lists Russian sessions (cp866) and logs one off over HTTPS with channel binding', async () => {
    peer = await startWinRmPeer({ user: 'CORP\\admin', password: 'Adm1n-pass', https: true, lang: 'ru' });
    const res = await pywinrm(`https://127.0.0.1:${peer.port}/wsman`, 3, 866);
    expect(res.encrypted).toBe(false);
    expect(res.before.stdout).toMatch(/СЕАНС\s+ПОЛЬЗОВАТЕЛЬ\s+ID\s+СТАТУС/);
    expect(res.before.stdout).toMatch(/rdp-tcp#13\s+Иванов\s+3\s+Активно/);
    expect(res.logoff.exit).toBe(0);
    expect(res.after.stdout).not.toMatch(/Иванов/);
    expect(res.after.stdout).toMatch(/jdoe\s+2/);
    expect(res.wrong_password).toBe('rejected');
  }, 90_000);

  it('starts in the foreground through npm run peer:winrm and prints exactly one listening line', async () => {
    const child = spawn('npm', ['run', '-s', 'peer:winrm', '--', '--port', '0', '--user', 'CORP\\admin', '--password', 'pw', '--https'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('exit', (code) => reject(new Error(`peer exited with ${code}`)));
      });
      expect(firstLine).toMatch(/^listening [1-9]\d*$/);
    } finally {
      // npm runs the peer through a shell: stop the whole process group it started.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      }
    }
  }, 60_000);
});
