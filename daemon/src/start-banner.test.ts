import { describe, expect, it } from 'vitest';
import { startBanner } from './start-banner.js';

const sac = {
  url: 'http://127.0.0.1:8080',
  store: { kind: 'sqlite' as const },
  generatedApiKey: 'sac_TheKeyTheKeyTheKeyTheKey',
  apiKeyFile: '/data/bootstrap-api-key',
  generatedAdminPassword: 'GeneratedPw123456789012',
  adminPasswordFile: '/data/initial-admin-password',
};

describe('startBanner', () => {
  it('shows the first-start secrets on a terminal', () => {
    const text = startBanner(sac as never, 'admin', true);
    expect(text).toContain('Bootstrap agent API key (shown once): sac_TheKeyTheKeyTheKeyTheKey');
    expect(text).toContain('password (shown once): GeneratedPw123456789012');
    expect(text).toContain('also saved to /data/bootstrap-api-key (mode 0600)');
  });

  it('names only the files when nobody is looking (a pipe, a journal)', () => {
    const text = startBanner(sac as never, 'admin', false);
    expect(text).not.toContain('sac_TheKey');
    expect(text).not.toContain('GeneratedPw');
    expect(text).toContain('saved to /data/bootstrap-api-key (mode 0600)');
    expect(text).toContain('saved to /data/initial-admin-password (mode 0600)');
  });
});
