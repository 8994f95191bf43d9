import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dirname, 'winrm_peer.py');

export interface WinRmPeerOptions {
  user: string;
  password: string;
  https?: boolean;
  lang?: 'en' | 'ru';
  /** The account is not in the host's local Administrators group. */
  nonAdmin?: boolean;
}

export interface WinRmPeer {
  port: number;
  /** The self-signed certificate (PEM) when `https`. */
  certPem: string | null;
  /** PowerShell scripts the peer was asked to run, in order. */
  recordedScripts(): string[];
  stop(): Promise<void>;
}

/** Starts the WS-Management stand-in (`winrm_peer.py`) on an ephemeral loopback port. */
export async function startWinRmPeer(opts: WinRmPeerOptions): Promise<WinRmPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'sac-winrm-peer-'));
  const record = join(dir, 'scripts.jsonl');
  const certOut = join(dir, 'cert.pem');
  const args = [SCRIPT, '--port', '0', '--user', opts.user, '--password', opts.password, '--lang', opts.lang ?? 'en', '--record', record];
  if (opts.https) args.push('--https', '--cert-out', certOut);
  if (opts.nonAdmin) args.push('--non-admin');
  const child: ChildProcess = spawn('python3', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`winrm peer did not start: ${stderr}`)), 45_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^listening (\d+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`winrm peer exited with ${code}: ${stderr}`));
    });
  });
  return {
    port,
    certPem: opts.https ? readFileSync(certOut, 'utf8') : null,
    recordedScripts() {
      try {
        return readFileSync(record, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { script: string }).script);
      } catch {
        return [];
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
