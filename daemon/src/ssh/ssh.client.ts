import type { Readable } from 'node:stream';
import { Client, type ConnectConfig } from 'ssh2';
import { systemClock } from '../clock.js';
import { verifyHostKey, type HostKeyVerdict } from './known-hosts.rules.js';

/** SSH administrator access (the `ssh_admin` settings, secrets in clear). */
export interface SshAdminCredentials {
  username: string;
  port: number;
  private_key: string | null;
  passphrase: string | null;
  password: string | null;
  known_hosts: string;
}

export interface SshProbeResult {
  ok: boolean;
  detail: string;
  duration_ms: number;
  /** The address connected to. */
  host: string;
}

export interface SshExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An authenticated connection to one host whose key matched `known_hosts`. */
export interface SshSession {
  /** The address connected to. */
  host: string;
  /** Runs `command`, feeding `stdin` when given; output is kept up to `maxOutput` characters per stream. */
  exec(command: string, options: { stdin?: Readable | Buffer; timeoutMs: number; maxOutput?: number }): Promise<SshExecResult>;
  end(): void;
}

/** Why a connection or command failed, in words safe to show (never a credential). */
export class SshFailure extends Error {
  constructor(
    message: string,
    /** The address this happened on, when known. */
    readonly host?: string,
  ) {
    super(message);
  }
}

const VERDICT_TEXT: Record<Exclude<HostKeyVerdict, 'match'>, string> = {
  mismatch: 'host key does not match known_hosts',
  unknown: 'host is not in known_hosts (no trust on first use)',
  revoked: 'host key is revoked in known_hosts',
};

/** Where SSH connects: a verified action target (`address`), proving itself as `name` or `address` in `known_hosts`. */
export interface SshTarget {
  address: string;
  name: string;
}

/**
 * The `known_hosts` verdict for a target: a key revoked for either the name or the address is
 * refused; a key listed for either one matches (both were pinned by an admin or observed by SAC,
 * never taken from what an agent reports).
 */
function targetVerdict(knownHosts: string, target: SshTarget, port: number, key: Buffer): HostKeyVerdict {
  const verdicts = [...new Set([target.name, target.address])].map((n) => verifyHostKey(knownHosts, n, port, key));
  for (const v of ['revoked', 'match', 'mismatch'] as const) if (verdicts.includes(v)) return v;
  return 'unknown';
}

/** Connects to the target's address and authenticates; the host key must be in `known_hosts`. */
function connectOnce(target: SshTarget, creds: SshAdminCredentials, timeoutMs: number): Promise<Client> {
  const host = target.address;
  return new Promise((resolve, reject) => {
    const conn = new Client();
    let verdict: HostKeyVerdict | null = null;
    let settled = false;
    const fail = (failure: SshFailure) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      conn.end();
      reject(failure);
    };
    // Deadlines on a real peer's socket: the system clock (its callers, actions and updates, hand no clock in).
    const timer = systemClock.setTimeout(() => fail(new SshFailure(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const config: ConnectConfig = {
      host,
      port: creds.port,
      username: creds.username,
      readyTimeout: timeoutMs,
      // One method: the key when one is configured, else the password. ssh2 offers every credential
      // it is given (the password even before the key), so any host in known_hosts that refuses
      // the key would otherwise receive the fleet-wide password.
      ...(creds.private_key
        ? { privateKey: creds.private_key, ...(creds.passphrase ? { passphrase: creds.passphrase } : {}) }
        : creds.password
          ? { password: creds.password }
          : {}),
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        verdict = targetVerdict(creds.known_hosts, target, creds.port, key);
        return verdict === 'match';
      },
    };
    conn.on('ready', () => {
      if (settled) return;
      settled = true;
      timer.cancel();
      resolve(conn);
    });
    conn.on('error', (err: Error & { level?: string; code?: string }) => {
      if (verdict !== null && verdict !== 'match') fail(new SshFailure(VERDICT_TEXT[verdict]));
      else if (err.level === 'client-authentication') fail(new SshFailure('authentication failed'));
      else if (err.level === 'client-socket' || err.code === 'ENOTFOUND' || err.code === 'ECONNREFUSED' || err.code === 'EAI_AGAIN')
        fail(new SshFailure(`unreachable (${err.code ?? err.message})`));
      else if (err.level === 'client-timeout') fail(new SshFailure('no answer in time'));
      else fail(new SshFailure(err.message));
    });
    try {
      conn.connect(config);
    } catch (err) {
      // A key ssh2 cannot parse is refused before any connection is made.
      fail(new SshFailure(`bad SSH settings: ${err instanceof Error ? err.message.slice(0, 120) : 'unusable'}`));
    }
  });
}

function execOn(conn: Client, command: string, options: { stdin?: Readable | Buffer; timeoutMs: number; maxOutput?: number }): Promise<SshExecResult> {
  const max = options.maxOutput ?? 16_384;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      timer.cancel();
      conn.off('close', onClose);
      fn();
    };
    // A connection lost mid-command ends the wait at once, not at the timeout.
    const onClose = () => settle(() => reject(new SshFailure('the connection closed before the command finished')));
    conn.on('close', onClose);
    const timer = systemClock.setTimeout(
      () =>
        settle(() => {
          conn.end();
          reject(new SshFailure(`the command did not finish within ${Math.round(options.timeoutMs / 1000)} s`));
        }),
      options.timeoutMs,
    );
    conn.exec(command, (err, stream) => {
      if (err) return settle(() => reject(new SshFailure(`cannot run a command: ${err.message}`)));
      let stdout = '';
      let stderr = '';
      stream.on('data', (d: Buffer) => {
        if (stdout.length < max) stdout += d.toString('utf8');
      });
      stream.stderr.on('data', (d: Buffer) => {
        if (stderr.length < max) stderr += d.toString('utf8');
      });
      stream.on('close', (code: number | null) => settle(() => resolve({ code, stdout: stdout.slice(0, max), stderr: stderr.slice(0, max) })));
      const input = options.stdin;
      if (input === undefined) stream.end();
      else if (Buffer.isBuffer(input)) stream.end(input);
      else {
        // An input that cannot be read ends the command (it sees a short stdin and fails).
        input.on('error', () => stream.close());
        input.pipe(stream);
      }
    });
  });
}

/** Opens an SSH administrator session on the target; throws `SshFailure` naming the address and the reason. */
export async function connectSshAdmin(target: SshTarget, creds: SshAdminCredentials, timeoutMs = 10_000): Promise<SshSession> {
  try {
    const conn = await connectOnce(target, creds, timeoutMs);
    return { host: target.address, exec: (command, options) => execOn(conn, command, options), end: () => conn.end() };
  } catch (err) {
    throw new SshFailure(`${target.address}: ${err instanceof SshFailure ? err.message : String(err)}`, target.address);
  }
}

const COMMAND = 'sudo -n true';

/**
 * Tests SSH administrator access: the target is authenticated against (the key when one is configured, else the password), its host key must be in
 * `known_hosts`, and `sudo -n true` must succeed. Never throws; never puts a credential into `detail`.
 */
export async function probeSshAdmin(target: SshTarget, creds: SshAdminCredentials, timeoutMs = 10_000): Promise<SshProbeResult> {
  const started = Date.now();
  let session: SshSession | null = null;
  try {
    session = await connectSshAdmin(target, creds, timeoutMs);
    const { code, stderr } = await session.exec(COMMAND, { timeoutMs, maxOutput: 2048 });
    const ok = code === 0;
    const reason = stderr.trim().split('\n')[0]?.slice(0, 200) ?? '';
    const detail = ok ? `${COMMAND} succeeded on ${session.host} as ${creds.username}` : `${COMMAND} failed on ${session.host} (exit ${code})${reason ? `: ${reason}` : ''}`;
    return { ok, detail, duration_ms: Date.now() - started, host: session.host };
  } catch (err) {
    const message = err instanceof SshFailure ? err.message : String(err);
    const detail = session ? `${session.host}: ${message}` : message;
    const host = session?.host ?? (err instanceof SshFailure ? err.host : undefined) ?? '';
    return { ok: false, detail, duration_ms: Date.now() - started, host };
  } finally {
    session?.end();
  }
}
