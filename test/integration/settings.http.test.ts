import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('settings store on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  const botToken = '123456:telegram-bot-token-under-test';
  beforeAll(async () => {
    sac = await startTestSac(kind);
    token = await adminToken(sac);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('stores a secret encrypted, shows it only as { set: true }, and hands it in clear to features', async () => {
    const res = await api(sac, 'PATCH', '/api/v1/settings/telegram', { token, body: { bot_token: botToken, chat_ids: ['-100123'] } });
    expect(res.status).toBe(200);
    expect(res.body.values).toEqual({ bot_token: { set: true }, chat_ids: ['-100123'], api_base: 'https://api.telegram.org' });
    expect(res.body.stored_fields).toEqual(['bot_token', 'chat_ids']);
    expect(res.body.updated_by).toBe('admin');
    expect(await sac.sac.settings.get('telegram')).toMatchObject({ bot_token: botToken, chat_ids: ['-100123'] });
    const raw = await sac.sac.store.settings.get('settings.telegram');
    expect(raw!.value).not.toContain(botToken);
    expect(raw!.value).toContain('$enc');
    expect(JSON.stringify((await api(sac, 'GET', '/api/v1/settings', { token })).body)).not.toContain(botToken);
    expect(statSync(path.join(sac.dataDir, 'master-key')).mode & 0o777).toBe(0o600);
  });

  it('keeps a secret when other fields change or when { set: true } is sent back, and clears it with null', async () => {
    await api(sac, 'PATCH', '/api/v1/settings/telegram', { token, body: { chat_ids: ['-100999'] } });
    expect((await sac.sac.settings.get('telegram')).bot_token).toBe(botToken);
    await api(sac, 'PATCH', '/api/v1/settings/telegram', { token, body: { bot_token: { set: true } } });
    expect((await sac.sac.settings.get('telegram')).bot_token).toBe(botToken);
    const cleared = await api(sac, 'PATCH', '/api/v1/settings/telegram', { token, body: { bot_token: null } });
    expect(cleared.body.values.bot_token).toEqual({ set: false });
    expect((await sac.sac.settings.get('telegram')).bot_token).toBeNull();
  });

  it('encrypts secrets inside arrays and keeps them by position', async () => {
    const repos = [{ product: 'ssh-monitor', url: 'https://git.example/ssh-monitor.git', token: 'ghp_repo_token_one' }];
    const res = await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos } });
    expect(res.body.values.repos[0]).toEqual({ ...repos[0], branch: null, token: { set: true }, version_from: 'tag', version_file: null });
    await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ ...repos[0], branch: 'main', token: { set: true } }] } });
    expect((await sac.sac.settings.get('git_repos')).repos[0]).toMatchObject({ branch: 'main', token: 'ghp_repo_token_one' });
    expect((await sac.sac.store.settings.get('settings.git_repos'))!.value).not.toContain('ghp_repo_token_one');
  });

  it('lets a stored value override the environment default field by field, and reset brings the environment back', async () => {
    sac.sac.settings.registerEnvDefaults('correlation', () => ({ window_minutes: 42 }));
    expect((await sac.sac.settings.get('correlation')).window_minutes).toBe(42);
    await api(sac, 'PATCH', '/api/v1/settings/correlation', { token, body: { window_minutes: 7 } });
    expect((await sac.sac.settings.get('correlation')).window_minutes).toBe(7);
    const seen: string[] = [];
    const off = sac.sac.settings.onChange((c) => seen.push(c));
    await sac.sac.settings.reset('correlation', undefined, { user: null, ip: undefined });
    off();
    expect(seen).toEqual(['correlation']);
    expect((await sac.sac.settings.get('correlation')).window_minutes).toBe(42);
  });

  it('refuses environment defaults that the category schema rejects, at registration', () => {
    expect(() => sac.sac.settings.registerEnvDefaults('correlation', () => ({ window_minutes: -1 }))).toThrow(/correlation.*window_minutes/);
  });

  it('refuses invalid values with 400 naming the field, unknown categories with 404, a monitor with 403', async () => {
    const bad = await api(sac, 'PATCH', '/api/v1/settings/correlation', { token, body: { window_minutes: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('window_minutes');
    const unknownField = await api(sac, 'PATCH', '/api/v1/settings/correlation', { token, body: { colour: 'red' } });
    expect(unknownField.status).toBe(400);
    expect((await api(sac, 'PATCH', '/api/v1/settings/nope', { token, body: {} })).status).toBe(404);
    expect((await api(sac, 'GET', '/api/v1/settings', { token: await userToken(sac, 'monitor') })).status).toBe(403);
  });

  it('audits which fields changed, never their values', async () => {
    const entries = await sac.sac.store.audit.list({ action: 'settings.', limit: 50 });
    const telegram = entries.filter((e) => e.target === 'settings:telegram');
    expect(telegram.map((e) => e.details.fields)).toContainEqual(['bot_token', 'chat_ids']);
    expect(JSON.stringify(entries)).not.toContain(botToken);
    expect(JSON.stringify(entries)).not.toContain('ghp_repo_token_one');
  });
});
