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
});
