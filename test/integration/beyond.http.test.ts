import { randomUUID } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { aFullJobRun } from '../helpers/jobs.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { startTelegramPeer, type TelegramPeer } from '../peers/telegram.peer.js';
import { trpc } from '../peers/trpc.js';
import { waitFor } from '../helpers/clock.js';

const BOT_TOKEN = '777000:beyond-test-bot-token';
const CHAT = '-100777';
const MIN = 60_000;

type Delivery = { id: string; channel: string; topic: string; ref: string; status: string; last_error: string | null; content: any };

async function deliveries(t: TestSac, token: string, ref: string): Promise<Delivery[]> {
  const res = await trpc(t, token, 'query', 'notifications.deliveries', { limit: 500 });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.error)}`);
  return (res.data as Delivery[]).filter((d) => d.ref === ref);
}

/** A critical event on `hostname` (always notified) with a unique title; returns its id and title. */
async function critical(t: TestSac, hostname: string): Promise<{ id: string; title: string }> {
  const title = `Root shell ${randomUUID().slice(0, 8)}`;
  const id = await ingestEvent(t, {
    type: 'privilege.sudo.command',
    category: 'privilege',
    severity: 'critical',
    title,
    host: { hostname, os_family: 'linux' },
    source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
    occurred_at: new Date().toISOString(),
  });
  return { id, title };
}

async function problemOf(t: TestSac, token: string, hostname: string): Promise<{ id: string; status: string; acknowledged_by: string | null }> {
  return waitFor(`problem on ${hostname}`, async () => {
    const res = await api(t, 'GET', `/api/v1/problems?host=${hostname}&type=privilege.sudo`, { token });
    return res.status === 200 && res.body.items.length > 0 ? res.body.items[0] : null;
  });
}

function totpFor(secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

describe.each(STORE_KINDS)('maintenance, escalation, Telegram acknowledge and TOTP on %s', (kind) => {
  let tg: TelegramPeer;
  let t: TestSac;
  let token: string;
  const clock = new TestClock();

  beforeAll(async () => {
    tg = await startTelegramPeer(BOT_TOKEN);
    t = await startTestSac(
      kind,
      {
        SAC_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
        SAC_TELEGRAM_CHAT_IDS: CHAT,
        SAC_TELEGRAM_API_BASE: tg.url,
        SAC_NOTIFY_CHANNELS: 'telegram',
        SAC_TELEGRAM_POLL_TIMEOUT_SECONDS: '1',
        SAC_ESCALATION_CHECK_SECONDS: '0.2',
        SAC_PUBLIC_URL: 'http://sac.example.test:8080',
        ...FAST_DELIVERY,
        ...reportNeverDue(),
      },
      { clock },
    );
    token = await adminToken(t);
  });

  afterAll(async () => {
    await t?.close();
    await tg?.close();
  });

  it('a critical event inside a maintenance window is stored but not sent, and one after the window is sent', async () => {
    const host = `mw-${randomUUID().slice(0, 6)}`;
    const created = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { hosts: [host.toUpperCase()], starts_at: new Date(clock.now() - MIN).toISOString(), duration_minutes: 120, reason: 'Patch night' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ hosts: [host], active: true, reason: 'Patch night' });
    const active = await api(t, 'GET', `/api/v1/maintenance-windows/active?host=${host.toUpperCase()}`, { token });
    expect(active.body.windows.map((w: { id: string }) => w.id)).toEqual([created.body.id]);

    const inside = await critical(t, host);
    expect((await api(t, 'GET', `/api/v1/events/${inside.id}`, { token })).status).toBe(200);
    const held = await waitFor('suppressed delivery', async () => {
      const rows = await deliveries(t, token, inside.id);
      return rows.length > 0 ? rows : null;
    });
    expect(held.map((r) => r.status)).toEqual(['suppressed']);
    expect(held[0]!.last_error).toContain(created.body.id);
    // The problem the event opened is held back too.
    const problem = await problemOf(t, token, host);
    await waitFor('suppressed problem notice', async () => (await deliveries(t, token, problem.id)).some((r) => r.status === 'suppressed'));

    const ended = await api(t, 'POST', `/api/v1/maintenance-windows/${created.body.id}/end`, { token });
    expect(ended.status).toBe(200);
    expect(ended.body.active).toBe(false);
    expect((await api(t, 'POST', `/api/v1/maintenance-windows/${created.body.id}/end`, { token })).status).toBe(409);

    const after = await critical(t, host);
    await waitFor('event after the window sent', () => tg.calls.some((c) => c.text.includes(after.title)));
    // The end of the window sends nothing retroactively.
    expect(tg.calls.some((c) => c.text.includes(inside.title))).toBe(false);
    expect((await deliveries(t, token, inside.id)).map((r) => r.status)).toEqual(['suppressed']);

    const audit = await api(t, 'GET', '/api/v1/audit?action=maintenance.', { token });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['maintenance.created', 'maintenance.ended']));
  });

  it('refuses a monitor managing windows unless the setting allows it, and bad windows', async () => {
    const monitor = await createUser(t, 'monitor');
    const mtoken = (await login(t, monitor.user.username, monitor.password)).body.token as string;
    const body = { starts_at: new Date(clock.now()).toISOString(), duration_minutes: 5, reason: 'x' };
    expect((await api(t, 'POST', '/api/v1/maintenance-windows', { token: mtoken, body })).status).toBe(403);
    expect((await api(t, 'GET', '/api/v1/maintenance-windows', { token: mtoken })).status).toBe(200);
    await api(t, 'PATCH', '/api/v1/settings/maintenance', { token, body: { managers: 'operators' } });
    const byMonitor = await api(t, 'POST', '/api/v1/maintenance-windows', { token: mtoken, body: { ...body, hosts: ['nowhere-host'] } });
    expect(byMonitor.status).toBe(201);
    expect(byMonitor.body.created_by).toBe(monitor.user.username);
    const edited = await api(t, 'PUT', `/api/v1/maintenance-windows/${byMonitor.body.id}`, { token: mtoken, body: { ...body, hosts: ['other-host'], reason: 'moved' } });
    expect(edited.body).toMatchObject({ hosts: ['other-host'], reason: 'moved' });
    await api(t, 'PATCH', '/api/v1/settings/maintenance', { token, body: { managers: 'admin' } });
    const oneOffWithoutEnd = await api(t, 'POST', '/api/v1/maintenance-windows', { token, body: { starts_at: body.starts_at, reason: 'x' } });
    expect(oneOffWithoutEnd.status).toBe(400);
    expect(oneOffWithoutEnd.body.error.code).toBe('maintenance/invalid');
    const badZone = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { starts_at: body.starts_at, reason: 'x', recurrence: { weekdays: [1], start: '02:00', duration_minutes: 60, timezone: 'Mars/Olympus' } },
    });
    expect(badZone.status).toBe(400);
    expect((await api(t, 'PUT', `/api/v1/maintenance-windows/${byMonitor.body.id}`, { token: mtoken, body })).status).toBe(403);
    expect((await api(t, 'POST', `/api/v1/maintenance-windows/${byMonitor.body.id}/end`, { token })).status).toBe(200);
    expect((await api(t, 'GET', `/api/v1/maintenance-windows/${randomUUID()}`, { token })).status).toBe(404);
  }, 90_000);

  it('re-notifies an unacknowledged critical problem on schedule and stops at acknowledge', async () => {
    const host = `esc-${randomUUID().slice(0, 6)}`;
    const set = await api(t, 'PATCH', '/api/v1/settings/escalation', {
      token,
      body: { policies: { critical: { interval_minutes: 15, max_repeats: 3 } } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await critical(t, host);
    const problem = await problemOf(t, token, host);
    await waitFor('problem opened notice', async () => (await deliveries(t, token, problem.id)).some((r) => r.topic === 'problem.opened' && r.status === 'sent'));
    const opened = tg.calls.find((c) => c.text.includes('Problem opened') && c.text.includes(host));
    expect(opened?.reply_markup?.inline_keyboard[0]).toEqual([
      { text: 'Acknowledge', callback_data: `ack:${problem.id}` },
      { text: 'Resolve', callback_data: `res:${problem.id}` },
      { text: 'Open in console', url: `http://sac.example.test:8080/problems/${problem.id}` },
    ]);

    clock.advance(14 * MIN);
    await aFullJobRun('escalation', { url: t.url, token });
    expect((await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated')).toEqual([]);
    clock.advance(MIN);
    const step1 = await waitFor('escalation step 1 sent', async () => {
      const rows = (await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated');
      return rows.length === 1 && rows[0]!.status === 'sent' ? rows : null;
    });
    expect(step1[0]!.content).toMatchObject({ kind: 'problem', action: 'escalated', step: 1, final: false });
    expect(tg.calls.some((c) => c.text.includes('Still open, reminder 1') && c.text.includes(host))).toBe(true);

    clock.advance(15 * MIN);
    await waitFor('escalation step 2', async () => (await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated').length === 2);

    const ack = await api(t, 'POST', `/api/v1/problems/${problem.id}/acknowledge`, { token, body: {} });
    expect(ack.status).toBe(200);
    clock.advance(30 * MIN);
    await aFullJobRun('escalation', { url: t.url, token });
    expect((await deliveries(t, token, problem.id)).filter((r) => r.topic === 'problem.escalated')).toHaveLength(2);
    await api(t, 'PATCH', '/api/v1/settings/escalation', { token, body: { policies: {} } });
  }, 90_000);

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
      tg.pushUpdate({ callback_query: { id, from: { id: from }, data, message: { message_id: message.message_id, chat: { id: Number(CHAT) }, text: 'Problem opened · CRITICAL' } } });
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

  it('signs in with a TOTP code from the shared secret and refuses a replayed code', async () => {
    const { user, password } = await createUser(t, 'monitor');
    const first = await login(t, user.username, password);
    const session = first.body.token as string;
    const enroll = await api(t, 'POST', '/api/v1/auth/totp/enroll', { token: session });
    expect(enroll.status).toBe(200);
    expect(enroll.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/SAC:/);
    expect(enroll.body.qr_svg).toContain('<svg');
    const totp = totpFor(enroll.body.secret);
    const confirm = await api(t, 'POST', '/api/v1/auth/totp/confirm', { token: session, body: { code: totp.generate({ timestamp: clock.now() }) } });
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
    expect(confirm.body.recovery_codes).toHaveLength(10);

    clock.advance(30_000);
    const challenge = await login(t, user.username, password);
    expect(challenge.status).toBe(200);
    expect(challenge.body).toMatchObject({ second_factor: 'totp' });
    expect(challenge.body.token).toBeUndefined();
    const code = totp.generate({ timestamp: clock.now() });
    const ok = await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: challenge.body.ticket, code } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.user.username).toBe(user.username);
    expect((await api(t, 'GET', '/api/v1/auth/me', { token: ok.body.token })).status).toBe(200);

    const again = await login(t, user.username, password);
    const replay = await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: again.body.ticket, code } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('auth/invalid_code');

    const recovery = confirm.body.recovery_codes[0] as string;
    expect((await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: again.body.ticket, code: recovery } })).status).toBe(200);
    const third = await login(t, user.username, password);
    expect((await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: third.body.ticket, code: recovery } })).status).toBe(401);
    // Wrong codes count as failed sign-ins: the third locks the username (429), even with a right code after.
    expect((await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: third.body.ticket, code: '000000' } })).status).toBe(401);
    const locked = await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: third.body.ticket, code: '111111' } });
    expect([401, 429]).toContain(locked.status);
    clock.advance(30_000);
    const lockedRight = await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: third.body.ticket, code: totp.generate({ timestamp: clock.now() }) } });
    expect(lockedRight.status).toBe(429);
    expect((await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket: 'forged', code } })).status).toBe(401);
  }, 90_000);

  it('makes users enrol at sign-in when admins require TOTP for all', async () => {
    const { user, password } = await createUser(t, 'monitor');
    expect((await api(t, 'PATCH', '/api/v1/settings/security', { token, body: { require_totp: 'all' } })).status).toBe(200);
    try {
      const challenge = await login(t, user.username, password);
      expect(challenge.body).toMatchObject({ second_factor: 'enroll' });
      const enroll = await api(t, 'POST', '/api/v1/auth/login/enroll', { body: { ticket: challenge.body.ticket } });
      expect(enroll.status).toBe(200);
      const code = totpFor(enroll.body.secret).generate({ timestamp: clock.now() });
      const done = await api(t, 'POST', '/api/v1/auth/login/enroll/confirm', { body: { ticket: challenge.body.ticket, code } });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.recovery_codes).toHaveLength(10);
      expect((await api(t, 'GET', '/api/v1/auth/totp', { token: done.body.token })).body).toMatchObject({ enabled: true, required: true, recovery_codes_left: 10 });
      // A ticket of the code step cannot be used to enrol again.
      const next = await login(t, user.username, password);
      expect(next.body.second_factor).toBe('totp');
      expect((await api(t, 'POST', '/api/v1/auth/login/enroll', { body: { ticket: next.body.ticket } })).status).toBe(401);
    } finally {
      await api(t, 'PATCH', '/api/v1/settings/security', { token, body: { require_totp: 'none' } });
    }
  }, 90_000);

  it('opens no host_silence for a host inside a maintenance window', async () => {
    const suffix = randomUUID().slice(0, 6);
    const [quiet, loud] = [`silq-${suffix}`, `sill-${suffix}`];
    const hb = (hostname: string) =>
      ingestEvent(t, { host: { hostname }, type: 'agent.heartbeat', category: 'agent', severity: 'info', occurred_at: new Date(clock.now()).toISOString() });
    await hb(quiet);
    await hb(loud);
    const w = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { hosts: [quiet], rules: ['host_silence'], starts_at: new Date(clock.now()).toISOString(), duration_minutes: 600, reason: 'Rack move' },
    });
    expect(w.status).toBe(201);
    const silence = async (hostname: string) => (await api(t, 'GET', `/api/v1/problems?host=${hostname}&rule=host_silence`, { token })).body.items;
    clock.advance(301 * MIN);
    await t.sac.jobs.tick({ name: 'host_silence', intervalMs: 3_600_000, run: (fence) => t.sac.silence.scan(fence) });
    expect(await silence(loud)).toHaveLength(1);
    expect(await silence(quiet)).toHaveLength(0);
  });
});

describe('Telegram webhook mode (SAC_PUBLIC_URL is https)', () => {
  let tg: TelegramPeer;
  let t: TestSac;

  beforeAll(async () => {
    tg = await startTelegramPeer(BOT_TOKEN);
    t = await startTestSac('sqlite', {
      SAC_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      SAC_TELEGRAM_CHAT_IDS: CHAT,
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
