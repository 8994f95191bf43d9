import type { SettingsValue } from '../../../shared/src/index.js';
import type { WinRmClientOptions } from './client.js';
import { winrmError } from './winrm.errors.js';

/**
 * Client options from the effective (decrypted) `windows_admin` settings. Without a username or
 * password WinRM is not configured and the caller falls back to the agent channel.
 */
export function winRmOptionsFromSettings(
  settings: SettingsValue<'windows_admin'>,
  extra: Pick<WinRmClientOptions, 'codepage' | 'timeoutMs' | 'ca'> = {},
): WinRmClientOptions {
  if (!settings.username || !settings.password) throw winrmError('winrm/not_configured', 'No Windows administrator is configured for WinRM');
  return {
    username: settings.username,
    password: settings.password,
    transport: settings.transport,
    port: settings.port ?? undefined,
    verifyTls: settings.verify_tls,
    ...extra,
  };
}
