import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_BOT_TOKEN, ALERT_CHAT, critical, problemOf, useAlertingSac } from '../helpers/alerting.js';
import { api, createUser, login } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { reportNeverDue } from '../peers/notify-env.js';
import { startTelegramPeer, type TelegramPeer } from '../peers/telegram.peer.js';

describe.each(STORE_KINDS)('acknowledge from Telegram on %s', (kind) => {
  let t: TestSac;
  let tg: TelegramPeer;
  let token: string;
  useAlertingSac(kind, (a) => ({ t, tg, token } = a));

  it('acknowledges a problem from a Telegram button press as the linked user', async () => {
    const monitor = await createUser(t, 'monitor');
    const mtoken = (await login(t, monitor.user.username, monitor.password)).body.token as string;
    const code = await api(t, 'POST', '/api/v1/auth/telegram/link-code', { token: mtoken });
    expect(code.status).toBe(201);
    expect(code.body.bot_command).toBe(`/link ${code.body.code}`);
    const tgUser = 4242 + Math.floor(Math.random() * 1000);
    tg.pushUpdate({ message: { message_id: 1, chat: { id: tgUser }, from: { id: tgUser, username: 'oncall_anna' }, text: code.body.bot_command } });
    await waitFor('linked', async () => (await api(t, 'GET', '/api/v1/auth/telegram', { token: mtoken })).body.linked === true);
    expect((await api(t, 'GET', '/api/v1/auth/telegram', { token: mtoken })).body.telegram_username).toBe('oncall_anna');
    await waitFor('link confirmed in the chat', () => tg.calls.some((c) => c.chat_id === String(tgUser) && c.text.includes(monitor.user.username)));
    // The code is single-use.
    tg.pushUpdate({ message: { message_id: 2, chat: { id: 9 }, from: { id: 9 }, text: code.body.bot_command } });
    await waitFor('refused reuse', () => tg.calls.some((c) => c.chat_id === '9' && c.text.includes('unknown or expired')));

    const host = `tg-${randomUUID().slice(0, 6)}`;
    await critical(t, host);
    const problem = await problemOf(t, token, host);
    const message = await waitFor('problem message', () => tg.calls.find((c) => c.text.includes('Problem opened') && c.text.includes(host)));

    const press = (id: string, from: number, data: string) =>
      tg.pushUpdate({ callback_query: { id, from: { id: from }, data, message: { message_id: message.message_id, chat: { id: Number(ALERT_CHAT) }, text: 'Problem opened · CRITICAL' } } });
    press('cb-stranger', 1, `ack:${problem.id}`);
    await waitFor('stranger answered', () => tg.answers.find((a) => a.callback_query_id === 'cb-stranger'));
    expect(tg.answers.find((a) => a.callback_query_id === 'cb-stranger')!.text).toContain('Link your Telegram');

    press('cb-ack', tgUser, `ack:${problem.id}`);
    await waitFor('ack answered', () => tg.answers.find((a) => a.callback_query_id === 'cb-ack'));
    expect(tg.answers.find((a) => a.callback_query_id === 'cb-ack')!.text).toBe('Acknowledged');
    const after = await api(t, 'GET', `/api/v1/problems/${problem.id}`, { token });
    expect(after.body).toMatchObject({ status: 'acknowledged', acknowledged_by: monitor.user.username });
    const edit = tg.edits.find((e) => e.message_id === message.message_id);
    expect(edit?.text).toContain(`Acknowledged by ${monitor.user.username}`);
    expect(edit?.reply_markup?.inline_keyboard).toEqual([[{ text: 'Resolve', callback_data: `res:${problem.id}` }]]);

    press('cb-again', tgUser, `ack:${problem.id}`);
    await waitFor('second press answered', () => tg.answers.find((a) => a.callback_query_id === 'cb-again'));
    expect(tg.answers.find((a) => a.callback_query_id === 'cb-again')!.text).toMatch(/acknowledged/i);

    const audit = await api(t, 'GET', '/api/v1/audit?limit=200', { token });
    expect(audit.body.entries.some((e: { action: string; ip: string; actor_username: string }) =>
      e.action === 'problem.acknowledged' && e.ip === 'telegram' && e.actor_username === monitor.user.username)).toBe(true);
  }, 90_000);
});

describe('Telegram webhook mode (SAC_PUBLIC_URL is https)', () => {
  let tg: TelegramPeer;
  let t: TestSac;

  beforeAll(async () => {
    tg = await startTelegramPeer(ALERT_BOT_TOKEN);
    t = await startTestSac('sqlite', {
      SAC_TELEGRAM_BOT_TOKEN: ALERT_BOT_TOKEN,
      SAC_TELEGRAM_CHAT_IDS: ALERT_CHAT,
      SAC_TELEGRAM_API_BASE: tg.url,
      SAC_PUBLIC_URL: 'https://sac.example.test/',
      ...reportNeverDue(),
    });
  });

  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  it('registers the webhook with a secret token, refuses a wrong token and handles a right one; no long polling', async () => {
    expect(tg.webhooks).toHaveLength(1);
    const { url, secret_token: secret } = tg.webhooks[0]!;
    expect(url).toBe('https://sac.example.test/api/v1/telegram/webhook');
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const { user, password } = await createUser(t, 'monitor');
    const mtoken = (await login(t, user.username, password)).body.token as string;
    const code = (await api(t, 'POST', '/api/v1/auth/telegram/link-code', { token: mtoken })).body.code as string;
    const update = { update_id: 1, message: { message_id: 1, chat: { id: 55 }, from: { id: 55, username: 'hooked' }, text: `/link ${code}` } };
    const wrong = await api(t, 'POST', '/api/v1/telegram/webhook', { body: update, headers: { 'X-Telegram-Bot-Api-Secret-Token': 'nope' } });
    expect(wrong.status).toBe(401);
    expect((await api(t, 'GET', '/api/v1/auth/telegram', { token: mtoken })).body.linked).toBe(false);
    const right = await api(t, 'POST', '/api/v1/telegram/webhook', { body: update, headers: { 'X-Telegram-Bot-Api-Secret-Token': secret } });
    expect(right.status).toBe(200);
    expect((await api(t, 'GET', '/api/v1/auth/telegram', { token: mtoken })).body).toMatchObject({ linked: true, telegram_username: 'hooked' });
    expect(tg.polls).toHaveLength(0);
  });
});
