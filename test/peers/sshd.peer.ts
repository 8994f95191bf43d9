import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SshdUser {
  name: string;
  password: string;
}

export interface SshdPeer {
  port: number;
  /** Allowed `sudo -n` (NOPASSWD in /etc/sudoers.d). */
  sudoer: SshdUser;
  /** Not in sudoers. */
  plain: SshdUser;
  /** OpenSSH private key (PEM text) authorised for both users. */
  clientKey: string;
  /** A `known_hosts` line for this sshd (`[127.0.0.1]:<port> ssh-ed25519 …`). */
  knownHosts: string;
  /** The same host name with another key: what a man in the middle would present. */
  wrongKnownHosts: string;
  /** sshd's authentication lines so far (`Accepted password for …`, `Failed publickey for …`). */
  authLog(): string[];
  stop(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';

/** True where a private sshd with its own users can run: root, with OpenSSH server and sudo installed. */
export function sshdAvailable(): boolean {
  try {
    execFileSync('test', ['-x', SSHD]);
    execFileSync('test', ['-x', '/usr/bin/sudo']);
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${stderr()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > end) throw new Error(`sshd did not listen on ${port}: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function keygen(file: string, comment: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  return readFileSync(`${file}.pub`, 'utf8').trim();
}

/**
 * Starts Debian's OpenSSH sshd on 127.0.0.1 (random port) with its own host key and config in a
 * temp dir (`UsePAM no`), and creates two local users — one with NOPASSWD sudo, one without —
 * that accept the same client key and each its own password. `stop()` removes all of it.
 * `sessionPath`: the PATH of every session (sshd's `SetEnv`), e.g. a directory of recording
 * wrappers put before the system's.
 */
export async function startSshd(opts: { sessionPath?: string } = {}): Promise<SshdPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'sac-sshd-'));
  chmodSync(dir, 0o755);
  const tag = randomBytes(3).toString('hex');
  const sudoer = { name: `sacok${tag}`, password: `Pw-${randomBytes(9).toString('base64url')}` };
  const plain = { name: `sacno${tag}`, password: `Pw-${randomBytes(9).toString('base64url')}` };
  const sudoersFile = `/etc/sudoers.d/sac-test-${tag}`;
  const created: string[] = [];
  let child: ChildProcess | null = null;

  const cleanup = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(sudoersFile, { force: true });
    for (const name of created) {
      try {
        execFileSync('userdel', ['-r', '-f', name], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const hostPub = keygen(join(dir, 'host_ed25519'), 'sac-test-host');
    const otherPub = keygen(join(dir, 'other_ed25519'), 'sac-test-other');
    const clientPub = keygen(join(dir, 'client_ed25519'), 'sac-test-client');
    for (const user of [sudoer, plain]) {
      execFileSync('useradd', ['-m', '-s', '/bin/sh', user.name]);
      created.push(user.name);
      execFileSync('chpasswd', { input: `${user.name}:${user.password}\n` });
      const home = `/home/${user.name}`;
      const uid = Number(execFileSync('id', ['-u', user.name]).toString().trim());
      const gid = Number(execFileSync('id', ['-g', user.name]).toString().trim());
      mkdirSync(join(home, '.ssh'), { mode: 0o700 });
      writeFileSync(join(home, '.ssh', 'authorized_keys'), `${clientPub}\n`, { mode: 0o600 });
      chownSync(join(home, '.ssh'), uid, gid);
      chownSync(join(home, '.ssh', 'authorized_keys'), uid, gid);
    }
    writeFileSync(sudoersFile, `${sudoer.name} ALL=(ALL) NOPASSWD: ALL\n`, { mode: 0o440 });
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

    const port = await freePort();
    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(dir, 'host_ed25519')}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'UsePAM no',
        'PasswordAuthentication yes',
        'PubkeyAuthentication yes',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin no',
        `AllowUsers ${sudoer.name} ${plain.name}`,
        'AuthorizedKeysFile .ssh/authorized_keys',
        // VERBOSE: every authentication attempt, accepted or failed, with its method.
        'LogLevel VERBOSE',
        ...(opts.sessionPath ? [`SetEnv PATH=${opts.sessionPath}`] : []),
        '',
      ].join('\n'),
    );
    let stderr = '';
    const authLines: string[] = [];
    let partial = '';
    child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString();
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (/\b(Accepted|Failed|Postponed) [a-z-]+ for /.test(line) && authLines.length < 1000) authLines.push(line);
    });
    await waitForPort(port, child, () => stderr);

    const [hostType, hostKey] = hostPub.split(' ');
    const [otherType, otherKey] = otherPub.split(' ');
    return {
      port,
      sudoer,
      plain,
      clientKey: readFileSync(join(dir, 'client_ed25519'), 'utf8'),
      knownHosts: `[127.0.0.1]:${port} ${hostType} ${hostKey}\n`,
      wrongKnownHosts: `[127.0.0.1]:${port} ${otherType} ${otherKey}\n`,
      authLog: () => [...authLines],
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
