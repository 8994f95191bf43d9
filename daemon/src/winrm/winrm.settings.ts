import { X509Certificate } from 'node:crypto';
import type { SettingsValue } from '../../../shared/src/index.js';
import type { WinRmClientOptions } from './client.js';
import { winrmError } from './winrm.errors.js';

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The admin's CA bundle as checked certificates, or undefined for the system store. The settings
 * schema checks the PEM shape; this checks each block parses as an X.509 certificate.
 */
function caBundle(pem: string): string | undefined {
  if (!pem.trim()) return undefined;
  const blocks = pem.match(PEM_BLOCK) ?? [];
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      throw winrmError('winrm/bad_ca', `Certificate ${i + 1} of the WinRM CA certificates does not parse`, { index: i + 1 }, err);
    }
  }
  if (blocks.length === 0) throw winrmError('winrm/bad_ca', 'The WinRM CA certificates hold no certificate');
  return blocks.join('\n');
}

/**
 * Client options from the effective (decrypted) `windows_admin` settings. Without a username or
 * password WinRM is not configured and the caller falls back to the agent channel.
 */
export function winRmOptionsFromSettings(
  settings: SettingsValue<'windows_admin'>,
  extra: Pick<WinRmClientOptions, 'codepage' | 'timeoutMs'> = {},
): WinRmClientOptions {
  if (!settings.username || !settings.password) throw winrmError('winrm/not_configured', 'No Windows administrator is configured for WinRM');
  return {
    username: settings.username,
    password: settings.password,
    transport: settings.transport,
    port: settings.port ?? undefined,
    verifyTls: settings.verify_tls,
    ca: caBundle(settings.ca_pem),
    ...extra,
  };
}
