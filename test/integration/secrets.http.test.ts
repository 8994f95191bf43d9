import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, login, type ApiResponse } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS, tempDir } from '../helpers/stores.js';

/** Every secret the scenario uses; none may show up in a log line or in an answer that did not issue it. */
const SECRETS = {
  adminPassword: 'Adm-Secret-Pass-4471',
  jwtSecret: 'jwt-signing-secret-0123456789abcdefghij',
  masterKey: 'master-key-material-0123456789abcdefghij',
  bootstrapKey: 'sac_BootstrapKeyUnderTest0123456789abcdef',
  userPassword: 'Monitor-Secret-Pass-9902',
  resetPassword: 'Reset-Secret-Pass-1217',
  wrongPassword: 'Wrong-Guess-Pass-5530',
  botToken: '987654:bot-token-secret-value',
  smtpPassword: 'smtp-password-secret-value',
  sshKey: '-----BEGIN OPENSSH PRIVATE KEY-----secret-key-body-----END OPENSSH PRIVATE KEY-----',
  winrmPassword: 'winrm-password-secret-value',
};

describe.each(STORE_KINDS)('no secret leaks into logs or answers on %s', (kind) => {
  let sac: TestSac;
  const answers: { label: string; text: string }[] = [];
  /** Secrets issued during the run (tokens, tickets, API keys) with the one answer allowed to carry each. */
  const issued: { value: string; issuedBy: string }[] = [];
  const record = (label: string, res: ApiResponse) => {
    const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n');
    answers.push({ label, text: `${res.status}\n${headers}\n${typeof res.body === 'string' ? res.body : JSON.stringify(res.body)}` });
    return res;
  };

  beforeAll(async () => {
    const dir = tempDir();
    const files = { jwt: `${dir}/jwt`, master: `${dir}/master` };
    writeFileSync(files.jwt, `${SECRETS.jwtSecret}\n`);
    writeFileSync(files.master, `${SECRETS.masterKey}\n`);
    sac = await startTestSac(kind, {
      SAC_ADMIN_PASSWORD: SECRETS.adminPassword,
      SAC_JWT_SECRET_FILE: files.jwt,
      SAC_MASTER_KEY_FILE: files.master,
      SAC_BOOTSTRAP_API_KEY: SECRETS.bootstrapKey,
    });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('runs sign-in, users, throttling, settings, keys, stream and ingest, then finds no secret anywhere it should not be', async () => {
    const adminLogin = record('admin login', await login(sac, 'admin', SECRETS.adminPassword));
    const admin = adminLogin.body.token as string;
    issued.push({ value: admin, issuedBy: 'admin login' });
    const a = (label: string, method: string, path: string, body?: unknown, token: string | null = admin) =>
      api(sac, method, path, { token, body }).then((r) => record(label, r));

    const created = await a('create user', 'POST', '/api/v1/users', { username: 'night', password: SECRETS.userPassword, role: 'monitor' });
    const monitorLogin = record('monitor login', await login(sac, 'night', SECRETS.userPassword));
    issued.push({ value: monitorLogin.body.token, issuedBy: 'monitor login' });
    await a('reset password', 'PATCH', `/api/v1/users/${created.body.id}`, { password: SECRETS.resetPassword });
    await a('old monitor token', 'GET', '/api/v1/auth/me', undefined, monitorLogin.body.token);
    for (let i = 0; i < 4; i++) record(`wrong password ${i}`, await login(sac, 'night', SECRETS.wrongPassword));
    record('bad login body', await api(sac, 'POST', '/api/v1/auth/login', { body: { username: 'admin', password: 12345 } }));
    const renewed = record('renew', await api(sac, 'POST', '/api/v1/auth/renew', { token: admin }));
    issued.push({ value: renewed.body.token, issuedBy: 'renew' });

    await a('telegram', 'PATCH', '/api/v1/settings/telegram', { bot_token: SECRETS.botToken, chat_ids: ['-1001'] });
    await a('smtp', 'PATCH', '/api/v1/settings/smtp', { url: `smtp://sac:${SECRETS.smtpPassword}@127.0.0.1:2525`, to: ['ops@example.com'] });
    await a('ssh', 'PATCH', '/api/v1/settings/ssh_admin', { username: 'sac', private_key: SECRETS.sshKey });
    await a('winrm', 'PATCH', '/api/v1/settings/windows_admin', { username: 'CORP\\sac', password: SECRETS.winrmPassword });
    await a('bad settings', 'PATCH', '/api/v1/settings/smtp', { url: `http://${SECRETS.smtpPassword}` });
    await a('settings list', 'GET', '/api/v1/settings');
    await a('settings one', 'GET', '/api/v1/settings/telegram');

    const key = await a('create key', 'POST', '/api/v1/api-keys', { label: 'branch' });
    issued.push({ value: key.body.key, issuedBy: 'create key' });
    await a('list keys', 'GET', '/api/v1/api-keys');
    expect((await postEvent(sac.url, key.body.key, buildEvent())).status).toBe(201);
    expect((await postEvent(sac.url, SECRETS.bootstrapKey, buildEvent())).status).toBe(201);
    expect((await postEvent(sac.url, 'sac_wrongwrongwrongwrongwrongwrongwrongwrong', buildEvent())).status).toBe(401);

    const ticket = await a('ticket', 'POST', '/api/v1/stream/ticket');
    issued.push({ value: ticket.body.ticket, issuedBy: 'ticket' });
    const stream = await openStream(sac, { ticket: ticket.body.ticket });
    await stream.next((f) => f.event === 'counters');
    stream.close();
    await a('audit', 'GET', '/api/v1/audit?limit=500');
    await a('users', 'GET', '/api/v1/users');
    await a('trpc settings', 'GET', `/trpc/settings.list`);
    await a('trpc me', 'GET', `/trpc/auth.me`);
    await a('delete user', 'DELETE', `/api/v1/users/${created.body.id}`);

    const logs = sac.logs.join('\n');
    expect(logs.length).toBeGreaterThan(1000);
    const leaks: string[] = [];
    for (const [name, value] of Object.entries(SECRETS)) {
      if (logs.includes(value)) leaks.push(`${name} in logs`);
      for (const answer of answers) if (answer.text.includes(value)) leaks.push(`${name} in answer "${answer.label}"`);
    }
    for (const { value, issuedBy } of issued) {
      if (logs.includes(value)) leaks.push(`token/key issued by "${issuedBy}" in logs`);
      for (const answer of answers) if (answer.label !== issuedBy && answer.text.includes(value)) leaks.push(`"${issuedBy}" secret in answer "${answer.label}"`);
    }
    expect(leaks).toEqual([]);
    // The stored settings hold ciphertext only.
    for (const category of ['telegram', 'smtp', 'ssh_admin', 'windows_admin']) {
      const raw = (await sac.sac.store.settings.get(`settings.${category}`))!.value;
      for (const value of Object.values(SECRETS)) expect(raw).not.toContain(value);
    }
  });
});
