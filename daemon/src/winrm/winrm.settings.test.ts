import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WindowsAdminSettingsSchema } from '../../../shared/src/settings.schema.js';
import { winRmOptionsFromSettings } from './winrm.settings.js';

describe('winRmOptionsFromSettings', () => {
  it('takes the transport, port and TLS check from the settings', () => {
    const settings = WindowsAdminSettingsSchema.parse({ username: 'CORP\\svc-sac', password: 'pw', transport: 'http', port: 15985, verify_tls: false });
    expect(winRmOptionsFromSettings(settings, { codepage: 866 })).toEqual({
      username: 'CORP\\svc-sac',
      password: 'pw',
      transport: 'http',
      port: 15985,
      verifyTls: false,
      codepage: 866,
    });
  });

  it('defaults to HTTPS on the standard port with the certificate verified', () => {
    const options = winRmOptionsFromSettings(WindowsAdminSettingsSchema.parse({ username: 'svc-sac@corp.example', password: 'pw' }));
    expect(options).toMatchObject({ transport: 'https', port: undefined, verifyTls: true });
  });

  it.each([{}, { username: 'CORP\\svc-sac' }, { password: 'pw' }])('is not configured without both username and password: %j', (input) => {
    expect(() => winRmOptionsFromSettings(WindowsAdminSettingsSchema.parse(input))).toThrow(expect.objectContaining({ code: 'winrm/not_configured' }));
  });

  it('trusts the admin’s CA certificates for HTTPS once each parses as X.509', () => {
    const ca = execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', '/dev/null', '-days', '1', '-subj', '/CN=Corp CA'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    const parse = (ca_pem: string) => WindowsAdminSettingsSchema.safeParse({ username: 'svc', password: 'pw', ca_pem });
    expect(winRmOptionsFromSettings(parse(ca).data!).ca).toBe(ca.trim());
    expect(winRmOptionsFromSettings(parse('').data!).ca).toBeUndefined();
    expect(parse('not a certificate').success).toBe(false);
    expect(parse(`${ca}\nextra text`).success).toBe(false);
    expect(parse('x'.repeat(70_000)).success).toBe(false);
    const garbled = parse('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(garbled.success).toBe(true);
    expect(() => winRmOptionsFromSettings(garbled.data!)).toThrow(expect.objectContaining({ code: 'winrm/bad_ca' }));
  });
});
