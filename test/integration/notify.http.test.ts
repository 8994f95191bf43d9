import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { buildProblem } from '../helpers/facts.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startPushPeer, type PushPeer } from '../peers/push.peer.js';
import { startSmtpPeer, type SmtpPeer } from '../peers/smtp.peer.js';
import { startTelegramPeer, type TelegramPeer } from '../peers/telegram.peer.js';
import { trpc } from '../peers/trpc.js';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { waitFor } from '../helpers/clock.js';
import { startWebhookPeer, type WebhookPeer } from '../peers/webhook.peer.js';

const BOT_TOKEN = '123456:TEST-bot-token-not-real';
const WEBHOOK_SECRET = 'hook-secret-for-tests';
const CHATS = ['-1001', '42'];

type Row = { id: string; channel: string; target: string | null; ref: string; topic: string; status: string; attempts: number; max_attempts: number; last_error: string | null; history: { at_ms: number; ok: boolean; error: string | null }[] };

async function deliveries(t: TestSac, token: string, filter: Record<string, unknown> = {}): Promise<Row[]> {
  const res = await trpc(t, token, 'query', 'notifications.deliveries', { limit: 500, ...filter });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.error)}`);
  return res.data as Row[];
}

async function rowsSettled(t: TestSac, token: string, ref: string, count: number, status: 'sent' | 'failed' = 'sent', timeoutMs = 15_000): Promise<Row[]> {
  return waitFor(`${count} ${status} deliveries of ${ref}`, async () => {
    const rows = (await deliveries(t, token)).filter((r) => r.ref === ref);
    return rows.length === count && rows.every((r) => r.status === status) ? rows : null;
  }, timeoutMs);
}

const channelsOf = (rows: Row[]) => rows.map((r) => r.channel).sort();

describe.each(STORE_KINDS)('notifications through real channel peers on %s', (kind) => {
  let tg: TelegramPeer;
  let hook: WebhookPeer;
  let smtp: SmtpPeer;
  let push: PushPeer;
  let t: TestSac;
  let token: string;

  beforeAll(async () => {
    [tg, hook, smtp, push] = await Promise.all([startTelegramPeer(BOT_TOKEN), startWebhookPeer(WEBHOOK_SECRET), startSmtpPeer('sac', 'mail-pass'), startPushPeer()]);
    t = await startTestSac(kind, {
      SAC_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      SAC_TELEGRAM_CHAT_IDS: CHATS.join(','),
      SAC_TELEGRAM_API_BASE: tg.url,
      SAC_WEBHOOK_URL: hook.url,
      SAC_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SAC_SMTP_URL: smtp.url,
      SAC_SMTP_FROM: 'SAC <sac@example.test>',
      SAC_SMTP_TO: 'soc@example.test, oncall@example.test',
      SAC_NOTIFY_MIN_SEVERITY: 'high',
      // The push peer listens on loopback; push.example stands for a public push service.
      SAC_PUSH_ALLOW_LOOPBACK: 'true',
      SAC_PUSH_HOSTS: 'push.example',
      ...FAST_DELIVERY,
      ...reportNeverDue(),
    });
    token = await adminToken(t);
    const reg = await api(t, 'POST', '/api/v1/push/subscriptions', { token, body: { ...push.subscription, label: 'test browser' } });
    expect(reg.status, JSON.stringify(reg.body) + t.logs.filter((l) => l.includes("unexpected")).join("\n")).toBe(201);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([tg?.close(), hook?.close(), smtp?.close(), push?.close()]);
  });

  beforeEach(() => {
    Object.assign(tg.state, { down: false, delayMs: 0, maxInFlight: 0 });
    tg.plan.length = 0;
    Object.assign(hook.state, { down: false, failNext: 0, hang: false, delayMs: 0, gate: 0, maxInFlight: 0 });
    Object.assign(smtp.state, { down: false, failNext: 0 });
    Object.assign(push.state, { status: null, failNext: 0 });
  });

  it('routes events by the policy matrix and each peer receives what it should', async () => {
    const m = randomUUID().slice(0, 8);
    const events = {
      burst: buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: `Burst <b>&${m}` }),
      viaAgent: buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: `Agent-sent ${m}`, details: { telegram_via: 'agent' } }),
      warning: buildEvent({ type: 'rdp.login.failed', severity: 'warning', title: `Failed ${m}` }),
      success: buildEvent({ type: 'rdp.login.success', severity: 'info', title: `Вход ${m}`, details: { telegram_via: 'agent' } }),
      lifecycle: buildEvent({ type: 'agent.lifecycle', category: 'agent', severity: 'info', title: `Started ${m}`, details: { lifecycle: 'started', telegram_via: 'sac' } }),
      rdg: buildEvent({ type: 'rdg.connection.failed', category: 'network', severity: 'warning', title: `RDG ${m}` }),
      heartbeat: buildEvent({ type: 'agent.heartbeat', category: 'agent', severity: 'info', title: `Beat ${m}` }),
    };
    for (const e of Object.values(events)) expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);

    const all = ['push', 'smtp', 'telegram', 'telegram', 'webhook'];
    const noTelegram = ['push', 'smtp', 'webhook'];
    expect(channelsOf(await rowsSettled(t, token, events.burst.event_id, 5))).toEqual(all);
    expect(channelsOf(await rowsSettled(t, token, events.viaAgent.event_id, 3))).toEqual(noTelegram);
    expect(channelsOf(await rowsSettled(t, token, events.success.event_id, 3))).toEqual(noTelegram);
    expect(channelsOf(await rowsSettled(t, token, events.lifecycle.event_id, 5))).toEqual(all);
    expect(channelsOf(await rowsSettled(t, token, events.rdg.event_id, 5))).toEqual(all);
    const logged = await deliveries(t, token);
    expect(logged.filter((r) => r.ref === events.warning.event_id || r.ref === events.heartbeat.event_id)).toEqual([]);

    // Telegram: HTML parse mode, escaped text, every chat, never the agent-sent ones.
    // (A high event may also open a problem, notified on its own: only event messages are counted here.)
    const tgTexts = tg.calls.filter((c) => c.text.includes(m) && !c.text.includes('Problem opened'));
    expect(tgTexts.filter((c) => c.text.includes(`Burst &lt;b&gt;&amp;${m}`)).map((c) => c.chat_id).sort()).toEqual([...CHATS].sort());
    expect(tgTexts.some((c) => c.text.includes(`Agent-sent ${m}`) || c.text.includes(`Вход ${m}`))).toBe(false);
    expect(tgTexts.every((c) => c.parse_mode === 'HTML')).toBe(true);
    // Webhook: versioned body, valid signature.
    const hooks = hook.deliveries.filter((d) => d.body.kind === 'event' && JSON.stringify(d.body).includes(m));
    expect(hooks).toHaveLength(5);
    expect(hooks.every((d) => d.signatureValid && d.body.version === 1)).toBe(true);
    expect(hooks.find((d) => d.body.event.event_id === events.burst.event_id)?.body.event).toMatchObject({
      type: 'rdp.bruteforce.burst',
      severity: 'high',
      hostname: 'RDS01',
      actor_user: 'administrator',
      ip: '203.0.113.45',
    });
    // E-mail: parsed by a real SMTP server, to every recipient, HTML plus text.
    const mail = smtp.mails.find((x) => x.subject?.startsWith('[SAC] HIGH') && x.subject.includes(`Burst <b>&${m}`));
    expect(mail?.envelopeTo.sort()).toEqual(['oncall@example.test', 'soc@example.test']);
    expect(mail?.text).toContain('IP: 203.0.113.45');
    expect(mail?.html).toContain(`Burst &lt;b&gt;&amp;${m}`);
    // Push: decrypted with the subscription's private key, VAPID token valid for SAC's key.
    const vapidKey = (await api(t, 'GET', '/api/v1/push/vapid-public-key', { token })).body.public_key;
    const pushes = push.deliveries.filter((d) => d.payload.tag.startsWith('event:') && JSON.stringify(d.payload).includes(m));
    expect(pushes).toHaveLength(5);
    expect(pushes.every((d) => d.vapidValid && d.vapidKey === vapidKey)).toBe(true);
    expect(pushes.find((d) => d.payload.tag === `event:${events.burst.event_id}`)?.payload.title).toBe('🔴 HIGH · RDS01');
  });

  it('retries through an outage with backoff, honours Telegram retry_after, and the delivery log shows it', async () => {
    hook.state.failNext = 2;
    smtp.state.failNext = 1;
    push.state.failNext = 1;
    tg.plan.push({ status: 429, retry_after: 1 });
    const e = buildEvent({ type: 'rdp.bruteforce.burst', severity: 'critical', title: 'Outage then recovery' });
    expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);
    const rows = await rowsSettled(t, token, e.event_id, 5);
    const by = (c: string) => rows.filter((r) => r.channel === c);
    const [webhookRow] = by('webhook');
    expect(webhookRow.attempts).toBe(3);
    expect(webhookRow.history.map((h) => h.ok)).toEqual([false, false, true]);
    expect(webhookRow.history[0].error).toContain('503');
    // Exponential backoff: the second wait is about twice the first (base 100 ms).
    const gaps = webhookRow.history.slice(1).map((h, i) => h.at_ms - webhookRow.history[i].at_ms);
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(by('smtp')[0].history.map((h) => h.ok)).toEqual([false, true]);
    expect(by('smtp')[0].history[0].error).toContain('451');
    expect(by('push')[0].attempts).toBe(2);
    const throttled = by('telegram').find((r) => r.attempts === 2)!;
    expect(throttled.history[0].error).toContain('429');
    expect(throttled.history[1].at_ms - throttled.history[0].at_ms).toBeGreaterThanOrEqual(1000);
    expect(by('telegram').map((r) => r.attempts).sort()).toEqual([1, 2]);
    const metrics = await (await fetch(`${t.url}/metrics`, { headers: { Authorization: `Bearer ${await adminToken(t)}` } })).text();
    expect(metrics).toMatch(/sac_notifications_total\{channel="webhook",outcome="retry"\} [1-9]/);
    expect(metrics).toMatch(/sac_notifications_total\{channel="telegram",outcome="sent"\} [1-9]/);
  });

  it('keeps to the per-channel concurrency limits (Telegram one at a time, webhook up to four)', async () => {
    tg.state.delayMs = 60;
    // The three webhook sends are held until all three are open at once: the batches of the three
    // events (and so their outbox rows) may come seconds apart on a slow store.
    hook.state.gate = 3;
    const events = Array.from({ length: 3 }, (_, i) => buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: `Concurrency ${i}` }));
    const answers = await Promise.all(events.map((e) => postEvent(t.url, t.apiKey, e)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    for (const e of events) await rowsSettled(t, token, e.event_id, 5);
    expect(tg.state.maxInFlight).toBe(1);
    expect(hook.state.maxInFlight).toBeGreaterThanOrEqual(2);
    expect(hook.state.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('answers 201 at once while a channel hangs (delivery is never awaited by ingest)', async () => {
    hook.state.hang = true;
    const e = buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: 'Hanging webhook' });
    const started = Date.now();
    expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);
    // The webhook attempt times out only after SAC_NOTIFY_TIMEOUT_MS (3 s).
    expect(Date.now() - started).toBeLessThan(1500);
    const timedOut = await waitFor('the timed-out webhook attempt', async () => {
      const row = (await deliveries(t, token)).find((r) => r.ref === e.event_id && r.channel === 'webhook');
      return row && row.history.length > 0 ? row : null;
    });
    expect(timedOut.history[0].error).toBe('webhook unreachable: timed out');
    hook.state.hang = false;
    await rowsSettled(t, token, e.event_id, 5);
  });

  it('answers 201 to ingest while every channel is down, marks deliveries failed after the last attempt, and retries now', { timeout: 150_000 }, async () => {
    tg.state.down = true;
    hook.state.down = true;
    smtp.state.down = true;
    push.state.status = 503;
    const events = Array.from({ length: 4 }, (_, i) => buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: `Down ${i}` }));
    const started = Date.now();
    const answers = await Promise.all(events.map((e) => postEvent(t.url, t.apiKey, e)));
    expect(answers.map((a) => a.status)).toEqual(events.map(() => 201));
    expect(Date.now() - started).toBeLessThan(3000);
    const failed = await rowsSettled(t, token, events[0].event_id, 5, 'failed', 90_000);
    expect(failed.every((r) => r.attempts === 4 && r.last_error)).toBe(true);

    const monitor = await userToken(t, 'monitor');
    const target = failed.find((r) => r.channel === 'webhook')!;
    expect((await trpc(t, monitor, 'mutation', 'notifications.retry', { id: target.id })).status).toBe(403);
    expect((await trpc(t, monitor, 'query', 'notifications.deliveries', {})).status).toBe(403);
    expect((await trpc(t, null, 'query', 'notifications.deliveries', {})).status).toBe(401);

    hook.state.down = false;
    const retried = await trpc(t, token, 'mutation', 'notifications.retry', { id: target.id });
    expect(retried.status).toBe(200);
    expect(retried.data).toMatchObject({ status: 'pending', max_attempts: 5 });
    const after = await waitFor('the retried delivery', async () => {
      const row = (await deliveries(t, token)).find((r) => r.id === target.id)!;
      return row.status === 'sent' ? row : null;
    });
    expect(after.attempts).toBe(5);
    const retriedAudit = await t.sac.store.audit.list({ action: 'notify.retried', target: `delivery:${target.id}`, limit: 5 });
    expect(retriedAudit).toHaveLength(1);
    expect(retriedAudit[0]).toMatchObject({ actor_username: t.adminUsername, details: { channel: 'webhook' } });
    const sent = await trpc(t, token, 'mutation', 'notifications.retry', { id: target.id });
    expect(sent.status).toBe(409);
    expect(sent.error.data.appCode).toBe('notify/not_retryable');
    expect((await trpc(t, token, 'mutation', 'notifications.retry', { id: randomUUID() })).status).toBe(404);
    await waitFor('all outage rows to settle', async () => (await deliveries(t, token)).every((r) => r.status === 'sent' || r.status === 'failed'), 40_000);
  });

  it('test sends report the real outcome of each channel', async () => {
    for (const channel of ['telegram', 'webhook', 'smtp', 'push']) {
      const res = await trpc(t, token, 'mutation', 'notifications.test', { channel });
      expect(res.status, channel).toBe(200);
      expect(res.data.ok, channel).toBe(true);
      expect(res.data.deliveries).toHaveLength(channel === 'telegram' ? 2 : 1);
    }
    expect(tg.calls.filter((c) => c.text.includes('SAC test message')).length).toBeGreaterThanOrEqual(2);
    expect(hook.deliveries.some((d) => d.body.kind === 'test' && d.body.version === 1 && d.signatureValid)).toBe(true);
    expect(smtp.mails.some((x) => x.subject === '[SAC] SAC test message')).toBe(true);
    expect(push.deliveries.some((d) => d.payload.title.includes('SAC test message'))).toBe(true);

    hook.state.down = true;
    const failed = await trpc(t, token, 'mutation', 'notifications.test', { channel: 'webhook' });
    expect(failed.data).toMatchObject({ ok: false, deliveries: [{ ok: false, status: 'failed' }] });
    expect(failed.data.deliveries[0].error).toContain('500');
    expect((await trpc(t, token, 'mutation', 'notifications.test', { channel: 'fax' })).status).toBe(400);
    expect((await trpc(t, await userToken(t, 'monitor'), 'mutation', 'notifications.test', { channel: 'webhook' })).status).toBe(403);
    const audited = await t.sac.store.audit.list({ action: 'notify.test_sent', limit: 10 });
    expect(audited.map((a) => [a.target, a.outcome])).toEqual(
      expect.arrayContaining([['channel:webhook', 'failed'], ['channel:webhook', 'ok'], ['channel:telegram', 'ok'], ['channel:smtp', 'ok'], ['channel:push', 'ok']]),
    );
    expect(audited.every((a) => a.actor_username === t.adminUsername)).toBe(true);
  });

  it('sends a new problem and its resolution to the channels that carried the opening', async () => {
    const problem = (severity: 'warning' | 'high', status: 'open' | 'resolved') =>
      buildProblem({
        id: pid(severity),
        type: 'rdp.bruteforce.burst',
        rule: 'default',
        severity,
        title: `Brute force on RDS01 (${severity})`,
        status,
        count: 3,
        ...(status === 'resolved' ? { resolved_by: 'manual' as const, resolved_by_user: 'admin' } : {}),
      });
    const ids = { high: randomUUID(), warning: randomUUID() };
    const pid = (s: 'warning' | 'high') => ids[s];
    await t.sac.facts.publish([{ type: 'problem.opened', problem: problem('high', 'open') }], 'service');
    await t.sac.facts.publish([{ type: 'problem.opened', problem: problem('warning', 'open') }], 'service');
    const opened = await rowsSettled(t, token, ids.high, 5);
    expect(new Set(opened.map((r) => r.topic))).toEqual(new Set(['problem.opened']));
    await t.sac.facts.publish([{ type: 'problem.resolved', problem: problem('high', 'resolved') }], 'service');
    await t.sac.facts.publish([{ type: 'problem.resolved', problem: problem('warning', 'resolved') }], 'service');
    const all = await rowsSettled(t, token, ids.high, 10);
    expect(channelsOf(all.filter((r) => r.topic === 'problem.resolved'))).toEqual(['push', 'smtp', 'telegram', 'telegram', 'webhook']);
    expect(hook.deliveries.find((d) => d.body.kind === 'problem' && d.body.action === 'resolved' && d.body.problem.id === ids.high)).toBeDefined();
    expect(tg.calls.some((c) => c.text.startsWith('✅ <b>Problem resolved · HIGH · RDS01</b>'))).toBe(true);
    // Below the minimum severity: neither the opening nor the resolution goes out.
    expect((await deliveries(t, token)).filter((r) => r.ref === ids.warning)).toEqual([]);
  });

  it('alerts the chat messenger once when a console sign-in is locked', async () => {
    const { user } = await createUser(t, 'monitor');
    for (let i = 0; i < 3; i++) await login(t, user.username, 'wrong-password-123');
    expect((await login(t, user.username, 'wrong-password-123')).status).toBe(429);
    const rows = await rowsSettled(t, token, user.username, 2);
    expect(rows.every((r) => r.channel === 'telegram' && r.topic === 'login_locked')).toBe(true);
    const alerts = tg.calls.filter((c) => c.text.includes(`&quot;${user.username}&quot;`));
    expect(alerts).toHaveLength(2);
    expect(alerts[0].text).toContain('🔒 <b>Console sign-in locked</b>');
    expect(alerts[0].text).toContain('3 failed sign-in attempts');
  });

  it('registers, lists and removes push subscriptions with input checks and roles', async () => {
    const monitor = await userToken(t, 'monitor');
    const bad = await api(t, 'POST', '/api/v1/push/subscriptions', { token: monitor, body: { endpoint: 'http://example.com/x', keys: push.subscription.keys } });
    expect(bad.status).toBe(400);
    const short = await api(t, 'POST', '/api/v1/push/subscriptions', { token: monitor, body: { endpoint: 'https://push.example/x', keys: { p256dh: 'AAAA', auth: 'BBBB' } } });
    expect(short.status).toBe(400);
    expect((await api(t, 'POST', '/api/v1/push/subscriptions', { body: push.subscription })).status).toBe(401);
    const sub = { endpoint: `https://push.example/${randomUUID()}`, keys: push.subscription.keys };
    const created = await api(t, 'POST', '/api/v1/push/subscriptions', { token: monitor, body: sub });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('auth');
    expect((await api(t, 'GET', '/api/v1/push/subscriptions', { token: monitor })).status).toBe(403);
    const listed = await api(t, 'GET', '/api/v1/push/subscriptions', { token });
    expect(listed.body.subscriptions.map((s: { id: string }) => s.id)).toContain(created.body.id);
    const viaTrpc = await trpc(t, monitor, 'mutation', 'notifications.subscribePush', sub);
    expect(viaTrpc.data.id).toBe(created.body.id);
    expect((await api(t, 'DELETE', `/api/v1/push/subscriptions/${created.body.id}`, { token: await userToken(t, 'monitor') })).status).toBe(404);
    expect((await api(t, 'DELETE', `/api/v1/push/subscriptions/${created.body.id}`, { token: monitor })).status).toBe(204);
  });

  it('forgets a push subscription the push service reports gone (410)', async () => {
    const extra = await startPushPeer();
    try {
      const reg = await api(t, 'POST', '/api/v1/push/subscriptions', { token, body: { ...extra.subscription, endpoint: extra.subscription.endpoint } });
      expect(reg.status).toBe(201);
      extra.state.status = 410;
      const res = await trpc(t, token, 'mutation', 'notifications.test', { channel: 'push' });
      expect(res.data.ok).toBe(false);
      expect(res.data.deliveries.find((d: { target: string }) => d.target === reg.body.id)).toMatchObject({ ok: false, status: 'failed' });
      const subs = await api(t, 'GET', '/api/v1/push/subscriptions', { token });
      expect(subs.body.subscriptions.map((x: { id: string }) => x.id)).not.toContain(reg.body.id);
    } finally {
      await extra.close();
    }
  });

  it('never shows the channel secrets in logs or API answers', async () => {
    const answers = [
      JSON.stringify(await deliveries(t, token)),
      JSON.stringify((await api(t, 'GET', '/api/v1/settings', { token })).body),
      JSON.stringify((await api(t, 'GET', '/api/v1/push/subscriptions', { token })).body),
    ].join('\n');
    for (const secret of [BOT_TOKEN, WEBHOOK_SECRET, 'mail-pass', push.subscription.keys.auth]) {
      expect(answers).not.toContain(secret);
      expect(t.logs.filter((l) => l.includes(secret))).toEqual([]);
    }
  });
});
