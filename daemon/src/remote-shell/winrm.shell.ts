import type { SettingsValue } from '../../../shared/src/index.js';
import { createWinRmClient, winRmOptionsFromSettings, type WinRmClient } from '../winrm/index.js';
import type { WindowsShell } from './remote-shell.js';

/**
 * The Windows shell over WinRM with the `windows_admin` settings (decrypted), read at each call;
 * a client is built per call, with that call's budget and the configured console code page.
 */
export function winRmShell(credentials: () => Promise<SettingsValue<'windows_admin'>>): WindowsShell {
  const client = async (timeoutMs: number): Promise<WinRmClient> => {
    const s = await credentials();
    return createWinRmClient(winRmOptionsFromSettings(s, { codepage: s.codepage === 'cp866' ? 866 : 437, timeoutMs }));
  };
  return {
    async configured() {
      const s = await credentials();
      return Boolean(s.username && s.password);
    },
    async open(target) {
      // Refuses now (winrm/not_configured, winrm/bad_ca) rather than at the first script.
      winRmOptionsFromSettings(await credentials());
      return {
        host: target.address,
        async run(script, options) {
          const r = await (await client(options.timeoutMs)).runPowerShell(target, script);
          return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
        },
        end() {},
      };
    },
    async test(target, timeoutMs) {
      const r = await (await client(timeoutMs)).test(target);
      return { ok: r.ok, detail: r.detail, durationMs: r.durationMs, ...(r.code ? { code: r.code } : {}) };
    },
    async listSessions(target, timeoutMs) {
      return (await client(timeoutMs)).listSessions(target);
    },
    async logoff(target, sessionId, timeoutMs) {
      return (await client(timeoutMs)).logoff(target, sessionId);
    },
  };
}
