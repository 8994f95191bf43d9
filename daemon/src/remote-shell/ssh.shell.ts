import type { SettingsValue } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';
import { connectSshAdmin, probeSshAdmin, SshFailure, type SshAdminCredentials } from '../ssh/index.js';
import { ShellFailure, type LinuxShell } from './remote-shell.js';

/** An SSH failure as the shell's own (its words are already safe to show). */
function shellFailure(err: unknown): unknown {
  return err instanceof SshFailure ? new ShellFailure(err.message, { cause: err }) : err;
}

/** The Linux shell over SSH with the `ssh_admin` settings (decrypted), read at each call. */
export function sshShell(credentials: () => Promise<SettingsValue<'ssh_admin'>>): LinuxShell {
  const admin = async (): Promise<SshAdminCredentials> => {
    const s = await credentials();
    if (!s.username || (!s.private_key && !s.password)) {
      throw new AppError('actions/ssh_not_configured', 'No SSH administrator (username and key or password) is configured');
    }
    return { username: s.username, port: s.port, private_key: s.private_key, passphrase: s.passphrase, password: s.password, known_hosts: s.known_hosts };
  };
  return {
    async open(target, timeoutMs) {
      const session = await connectSshAdmin(target, await admin(), timeoutMs).catch((err: unknown) => {
        throw shellFailure(err);
      });
      return {
        host: session.host,
        async run(script, options) {
          const r = await session.exec(script, options).catch((err: unknown) => {
            throw shellFailure(err);
          });
          return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr };
        },
        end: () => session.end(),
      };
    },
    async test(target, timeoutMs) {
      const r = await probeSshAdmin(target, await admin(), timeoutMs);
      return { ok: r.ok, detail: r.detail, durationMs: r.duration_ms, host: r.host };
    },
  };
}
