import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS, tempDir } from '../helpers/stores.js';

const mode = (file: string) => statSync(file).mode & 0o777;

describe.each(STORE_KINDS)('secrets that follow their destination on %s', (kind) => {
  let sac: TestSac;
  let admin: string;
  beforeAll(async () => {
    sac = await startTestSac(kind);
    admin = await adminToken(sac);
  });
  afterAll(async () => {
    await sac?.close();
  });
  const patch = (category: string, body: unknown) => api(sac, 'PATCH', `/api/v1/settings/${category}`, { token: admin, body });

  it('asks for the bot token again when the Telegram api_base changes', async () => {
    expect((await patch('telegram', { bot_token: '123:first-token', api_base: 'https://bot.example.org' })).status).toBe(200);
    for (const body of [{ api_base: 'https://collector.evil.test' }, { api_base: 'https://collector.evil.test', bot_token: { set: true } }]) {
      const refused = await patch('telegram', body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([{ path: 'bot_token', message: 'must be given again when its destination changes' }]);
    }
    expect((await sac.sac.settings.get('telegram')).api_base).toBe('https://bot.example.org');
    // Other fields keep the stored token; a new base with the token given is fine.
    expect((await patch('telegram', { chat_ids: ['-100'], bot_token: { set: true } })).status).toBe(200);
    expect((await patch('telegram', { api_base: 'https://bot2.example.org', bot_token: '123:first-token' })).status).toBe(200);
    expect(await sac.sac.settings.get('telegram')).toMatchObject({ api_base: 'https://bot2.example.org', bot_token: '123:first-token' });
  });

  it('asks for a git repository token again when its row points elsewhere (edited URL, or moved by a removal above it)', async () => {
    const repo = (product: string, url: string, token: unknown) => ({ product, url, token });
    const a = 'https://git.example.org/rdp-login-monitor.git';
    const b = 'https://git.example.org/ssh-monitor.git';
    expect((await patch('git_repos', { repos: [repo('rdp-login-monitor', a, 'token-rdp'), repo('ssh-monitor', b, 'token-ssh')] })).status).toBe(200);
    const edited = await patch('git_repos', { repos: [repo('rdp-login-monitor', 'https://collector.evil.test/x.git', { set: true }), repo('ssh-monitor', b, { set: true })] });
    expect(edited.status).toBe(400);
    expect(edited.body.error.details).toEqual([{ path: 'repos.0.token', message: 'must be given again when its destination changes' }]);
    // Removing the first row moves the second to position 0, where the stored token is the first row's.
    const moved = await patch('git_repos', { repos: [repo('ssh-monitor', b, { set: true })] });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details).toEqual([{ path: 'repos.0.token', message: 'must be given again when its destination changes' }]);
    expect((await sac.sac.settings.get('git_repos')).repos.map((r: { token: unknown }) => r.token)).toEqual(['token-rdp', 'token-ssh']);
    // Rows kept in place keep their tokens; a moved row with its token given again is fine.
    expect((await patch('git_repos', { repos: [repo('rdp-login-monitor', a, { set: true }), repo('ssh-monitor', b, { set: true })] })).status).toBe(200);
    expect((await patch('git_repos', { repos: [repo('ssh-monitor', b, 'token-ssh')] })).status).toBe(200);
    expect((await sac.sac.settings.get('git_repos')).repos).toMatchObject([{ product: 'ssh-monitor', url: b, token: 'token-ssh' }]);
  });

  it('keeps webhook header values secret: masked, encrypted at rest, and needed again when the URL changes', async () => {
    const headers = { Authorization: 'Bearer hook-header-secret-1', 'X-Team': 'soc' };
    expect((await patch('webhook', { url: 'https://hooks.example.org/sac', headers })).status).toBe(200);
    const view = await api(sac, 'GET', '/api/v1/settings/webhook', { token: admin });
    expect(view.body.values.headers).toEqual({ Authorization: { set: true }, 'X-Team': { set: true } });
    expect(JSON.stringify(view.body)).not.toContain('hook-header-secret-1');
    const raw = await sac.sac.store.settings.get('settings.webhook');
    expect(raw?.value).not.toContain('hook-header-secret-1');

    const moved = await patch('webhook', { url: 'https://collector.evil.test/' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.details).toEqual([{ path: 'headers', message: 'must be given again when its destination changes' }]);
    expect((await patch('webhook', { url: 'https://collector.evil.test/', headers: { Authorization: { set: true }, 'X-Team': { set: true } } })).status).toBe(400);
    // Unchanged URL: the kept markers keep the stored values.
    expect((await patch('webhook', { timeout_ms: 5000, headers: { Authorization: { set: true }, 'X-Team': 'blue' } })).status).toBe(200);
    expect((await sac.sac.settings.get('webhook')).headers).toEqual({ Authorization: 'Bearer hook-header-secret-1', 'X-Team': 'blue' });
    expect((await patch('webhook', { url: 'https://hooks2.example.org/', headers: { Authorization: 'Bearer new' } })).status).toBe(200);
    expect((await sac.sac.settings.get('webhook')).headers).toEqual({ Authorization: 'Bearer new' });
  });
});

describe('files of the data directory', () => {
  it('keeps the data dir 0700 and the database and secret files 0600, replacing stale files atomically', async () => {
    const dataDir = path.join(tempDir(), 'data');
    // A bootstrap key file left readable by an older version (the store is new: a key is generated).
    mkdirSync(dataDir, { mode: 0o755 });
    writeFileSync(path.join(dataDir, 'bootstrap-api-key'), 'stale\n', { mode: 0o644 });
    const sac = await startTestSac('sqlite', { SAC_DATA_DIR: dataDir, SAC_ADMIN_PASSWORD: '' });
    try {
      expect(mode(dataDir)).toBe(0o700);
      for (const file of ['sac.sqlite', 'master-key', 'bootstrap-api-key', 'initial-admin-password']) expect(mode(path.join(dataDir, file)), file).toBe(0o600);
      for (const file of readdirSync(dataDir).filter((f) => f.startsWith('sac.sqlite-'))) expect(mode(path.join(dataDir, file)), file).toBe(0o600);
      expect(sac.apiKey).toMatch(/^sac_/);
      expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await sac.close();
    }
  });
});
