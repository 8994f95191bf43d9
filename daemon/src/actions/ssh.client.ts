import { Client, type ConnectConfig } from 'ssh2';
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
  /** The candidate address that was tried last. */
  host: string;
}

const COMMAND = 'sudo -n true';

class ProbeFailure extends Error {
  constructor(
    message: string,
    /** True when the next candidate address may still answer (the host was not reached). */
    readonly unreachable: boolean,
  ) {
    super(message);
  }
}

const VERDICT_TEXT: Record<Exclude<HostKeyVerdict, 'match'>, string> = {
  mismatch: 'host key does not match known_hosts',
  unknown: 'host is not in known_hosts (no trust on first use)',
  revoked: 'host key is revoked in known_hosts',
};

/** Connects once, authenticates and runs `sudo -n true`; resolves with the exit code. */
function probeOnce(host: string, creds: SshAdminCredentials, timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const conn = new Client();
    let verdict: HostKeyVerdict | null = null;
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.end();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new ProbeFailure(`no answer within ${timeoutMs} ms`, true))), timeoutMs);
    const config: ConnectConfig = {
      host,
      port: creds.port,
      username: creds.username,
      readyTimeout: timeoutMs,
      // Only the configured methods; ssh2 tries key, then password.
      ...(creds.private_key ? { privateKey: creds.private_key, ...(creds.passphrase ? { passphrase: creds.passphrase } : {}) } : {}),
      ...(creds.password ? { password: creds.password } : {}),
      tryKeyboard: false,
      hostVerifier: (key: Buffer) => {
        verdict = verifyHostKey(creds.known_hosts, host, creds.port, key);
        return verdict === 'match';
      },
    };
    conn.on('ready', () => {
      conn.exec(COMMAND, (err, stream) => {
        if (err) return finish(() => reject(new ProbeFailure(`cannot run ${COMMAND}: ${err.message}`, false)));
        let stderr = '';
        stream.stderr.on('data', (d: Buffer) => {
          if (stderr.length < 2048) stderr += d.toString('utf8');
        });
        stream.on('data', () => undefined);
        stream.on('close', (code: number | null) => finish(() => resolve({ code, stderr })));
      });
    });
    conn.on('error', (err: Error & { level?: string; code?: string }) => {
      finish(() => {
        if (verdict !== null && verdict !== 'match') reject(new ProbeFailure(VERDICT_TEXT[verdict], false));
        else if (err.level === 'client-authentication') reject(new ProbeFailure('authentication failed', false));
        else if (err.level === 'client-socket' || err.code === 'ENOTFOUND' || err.code === 'ECONNREFUSED' || err.code === 'EAI_AGAIN')
          reject(new ProbeFailure(`unreachable (${err.code ?? err.message})`, true));
        else if (err.level === 'client-timeout') reject(new ProbeFailure('no answer in time', true));
        else reject(new ProbeFailure(err.message, false));
      });
    });
    try {
      conn.connect(config);
    } catch (err) {
      // A key ssh2 cannot parse is refused before any connection is made.
      finish(() => reject(new ProbeFailure(`bad SSH settings: ${err instanceof Error ? err.message.slice(0, 120) : 'unusable'}`, false)));
    }
  });
}

/**
 * Tests SSH administrator access: the first candidate address that answers is authenticated
 * against (key or password), its host key must be in `known_hosts`, and `sudo -n true` must
 * succeed. Never throws; never puts a credential into `detail`.
 */
export async function probeSshAdmin(candidates: string[], creds: SshAdminCredentials, timeoutMs = 10_000): Promise<SshProbeResult> {
  const started = Date.now();
  let last = candidates[0] ?? '';
  let detail = 'no address to try';
  for (const host of candidates) {
    last = host;
    try {
      const { code, stderr } = await probeOnce(host, creds, timeoutMs);
      const ok = code === 0;
      const reason = stderr.trim().split('\n')[0]?.slice(0, 200) ?? '';
      detail = ok ? `${COMMAND} succeeded on ${host} as ${creds.username}` : `${COMMAND} failed on ${host} (exit ${code})${reason ? `: ${reason}` : ''}`;
      return { ok, detail, duration_ms: Date.now() - started, host };
    } catch (err) {
      const failure = err instanceof ProbeFailure ? err : new ProbeFailure(String(err), false);
      detail = `${host}: ${failure.message}`;
      if (!failure.unreachable) break;
    }
  }
  return { ok: false, detail, duration_ms: Date.now() - started, host: last };
}
