import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { aFullJobRun } from '../helpers/jobs.js';
import { buildEvent, loadFixtures } from '../helpers/events.js';
import { STORE_KINDS, storeEnv, tempDir } from '../helpers/stores.js';
import { startSmtpPeer, type SmtpPeer } from '../peers/smtp.peer.js';
import { startTelegramPeer, type TelegramPeer } from '../peers/telegram.peer.js';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { trpc } from '../peers/trpc.js';
import { waitFor } from '../helpers/clock.js';
import { startWebhookPeer, type WebhookPeer } from '../peers/webhook.peer.js';

const BOT_TOKEN = '777:report-bot-token';

function agentReports() {
  const fixtures = loadFixtures();
  const rdp = fixtures.find((e) => e.type === 'report.daily.rdp')!;
  const ssh = fixtures.find((e) => e.type === 'report.daily.ssh')!;
  // A restarted agent re-sends its report under a new event_id: counted once.
  return [rdp, ssh, rdp].map((e) => ({ ...e, event_id: randomUUID() }));
}

async function sentRows(t: TestSac, token: string, ref: string, count: number) {
  return waitFor(`${count} sent deliveries of ${ref}`, async () => {
    const res = await trpc(t, token, 'query', 'notifications.deliveries', { limit: 500 });
    const rows = (res.data as { ref: string; status: string; channel: string }[]).filter((r) => r.ref === ref);
    return rows.length === count && rows.every((r) => r.status === 'sent') ? rows : null;
  }, 20_000);
}

describe.each(STORE_KINDS)('daily SSH/RDP reports on %s', (kind) => {
  let tg: TelegramPeer;
  let hook: WebhookPeer;
  let smtp: SmtpPeer;
  let t: TestSac;
  let token: string;

  beforeAll(async () => {
    [tg, hook, smtp] = await Promise.all([startTelegramPeer(BOT_TOKEN), startWebhookPeer('report-hook-secret'), startSmtpPeer('rep', 'rep-pass')]);
    t = await startTestSac(kind, {
      SAC_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      SAC_TELEGRAM_CHAT_IDS: '1001',
      SAC_TELEGRAM_API_BASE: tg.url,
      SAC_WEBHOOK_URL: hook.url,
      SAC_WEBHOOK_SECRET: 'report-hook-secret',
      SAC_SMTP_URL: smtp.url,
      SAC_SMTP_FROM: 'sac@example.test',
      SAC_SMTP_TO: 'soc@example.test',
      ...FAST_DELIVERY,
      ...reportNeverDue(),
    });
    token = await adminToken(t);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([tg?.close(), hook?.close(), smtp?.close()]);
  });

  it('aggregates the agents reports into one stored HTML report, sends it per policy, and lists and opens it', async () => {
    for (const e of agentReports()) expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);
    const monitor = await userToken(t, 'monitor');
    expect((await api(t, 'POST', '/api/v1/reports')).status).toBe(401);
    expect((await api(t, 'POST', '/api/v1/reports', { token: monitor })).status).toBe(403);
    const created = await api(t, 'POST', '/api/v1/reports', { token });
    expect(created.status).toBe(201);
    const report = created.body.report;
    expect(created.body.channels).toEqual(['telegram', 'webhook', 'smtp']);
    expect(report.trigger).toBe('manual');
    const audited = await t.sac.store.audit.list({ action: 'report.generated', target: `report:${report.id}`, limit: 5 });
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({ actor_username: t.adminUsername, details: { trigger: 'manual', hosts: 2 } });
    expect(report.summary.totals).toEqual({ hosts: 2, ssh_hosts: 1, rdp_hosts: 1, successful_logins: 26, failed_logins: 277, active_bans: 4 });
    expect(report.summary.top_failed_ips.slice(0, 2)).toEqual([
      { ip: '203.0.113.9', count: 120 },
      { ip: '198.51.100.4', count: 80 },
    ]);
    const rds = report.summary.hosts.find((h: { hostname: string }) => h.hostname === 'RDS01');
    expect(rds).toMatchObject({ platform: 'rdp', successful_logins: 14, failed_logins: 37, active_bans: 0, active_users: ['👤 ivanov', '👤 petrova'] });

    const list = await api(t, 'GET', '/api/v1/reports', { token: monitor });
    expect(list.status).toBe(200);
    expect(list.body.reports.map((r: { id: string }) => r.id)).toContain(report.id);
    expect((await api(t, 'GET', '/api/v1/reports?limit=0', { token: monitor })).status).toBe(400);
    const one = await api(t, 'GET', `/api/v1/reports/${report.id}`, { token: monitor });
    expect(one.body).toMatchObject({ id: report.id, html_path: `/api/v1/reports/${report.id}/html` });
    const html = await fetch(`${t.url}/api/v1/reports/${report.id}/html`, { headers: { Authorization: `Bearer ${monitor}` } });
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await html.text();
    for (const text of ['Daily SSH/RDP report', 'RDS01', 'web-01', '203.0.113.9 — 120', 'deploy pts/0 10.0.5.17', '277']) expect(page).toContain(text);
    expect((await api(t, 'GET', `/api/v1/reports/${randomUUID()}`, { token: monitor })).body.error.code).toBe('report/not_found');
    expect((await api(t, 'GET', `/api/v1/reports/${report.id}`)).status).toBe(401);
    const viaTrpc = await trpc(t, monitor, 'query', 'reports.byId', { id: report.id });
    expect(viaTrpc.data.html).toBe(page);
    expect(one.body.html).toBe(page);
    expect((await trpc(t, monitor, 'query', 'reports.list', {})).data).toEqual((await api(t, 'GET', '/api/v1/reports', { token: monitor })).body);
    expect((await trpc(t, monitor, 'query', 'reports.list', {})).data.reports[0].id).toBe(report.id);

    await sentRows(t, token, report.id, 3);
    const mail = smtp.mails.find((m) => m.subject === `[SAC] Daily SSH/RDP report ${report.day}`)!;
    expect(mail.html).toContain('web-01');
    expect(mail.text).toContain('Hosts: 2 · Successful logins: 26 · Failed logins: 277 · Active bans: 4');
    const chat = tg.calls.find((c) => c.text.startsWith(`📊 <b>Daily SSH/RDP report ${report.day}</b>`))!;
    expect(chat.text).toContain('RDS01 (rdp): ✔ 14 · ✖ 37');
    const body = hook.deliveries.find((d) => d.body.kind === 'report')!;
    expect(body.signatureValid).toBe(true);
    expect(body.body).toMatchObject({ version: 1, report: { id: report.id, totals: { failed_logins: 277 } } });

    if (kind === 'sqlite') {
      // Look at it: the report as a browser renders it, kept as a test artifact.
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      });
      try {
        const tab = await browser.newPage({ viewport: { width: 1200, height: 700 } });
        await tab.setContent(page);
        expect(await tab.locator('h1').textContent()).toContain('Daily SSH/RDP report');
        mkdirSync('test-results', { recursive: true });
        await tab.screenshot({ path: 'test-results/daily-report.png', fullPage: true });
      } finally {
        await browser.close();
      }
    }
  });

  it('follows the stored settings over the environment: language, enabled channels, hidden types', async () => {
    const patch = (category: string, body: unknown) => api(t, 'PATCH', `/api/v1/settings/${category}`, { token, body });
    expect((await patch('notification_policy', { language: 'ru', enabled_channels: ['telegram', 'webhook'] })).status).toBe(200);
    expect((await patch('hidden_types', { types: ['rdp.bruteforce'] })).status).toBe(200);
    expect((await patch('webhook', { headers: { 'X-Tenant': 'soc-1' } })).status).toBe(200);
    const hidden = buildEvent({ type: 'rdp.bruteforce.burst', severity: 'critical', title: 'Hidden burst' });
    const shown = buildEvent({ type: 'privilege.sudo.root', category: 'privilege', severity: 'critical', title: 'sudo до root' });
    for (const e of [hidden, shown]) expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);
    const rows = await sentRows(t, token, shown.event_id, 2);
    expect(rows.map((r) => r.channel).sort()).toEqual(['telegram', 'webhook']);
    expect(tg.calls.some((c) => c.text.startsWith('🚨 <b>КРИТИЧЕСКАЯ · RDS01</b>\n<b>sudo до root</b>'))).toBe(true);
    const hooked = hook.deliveries.find((d) => d.body.event?.event_id === shown.event_id)!;
    expect(hooked.headers['x-tenant']).toBe('soc-1');
    expect(hooked.signatureValid).toBe(true);
    const all = await trpc(t, token, 'query', 'notifications.deliveries', { limit: 500 });
    expect((all.data as { ref: string }[]).filter((r) => r.ref === hidden.event_id)).toEqual([]);
  });
});

describe.each(STORE_KINDS)('scheduled daily report on %s', (kind) => {
  it('waits for the first agent report of the day, then runs once per day even with two daemons on one store', async () => {
    const env = { ...storeEnv(kind, tempDir()), SAC_REPORT_TIME: '00:00', SAC_REPORT_TIMEZONE: 'UTC', SAC_REPORT_CHECK_SECONDS: '0.1' };
    const a = await startTestSac(kind, env);
    const b = await startTestSac(kind, env);
    try {
      const token = await adminToken(a);
      const scheduled = async () => {
        const res = await api(b, 'GET', '/api/v1/reports', { token: await adminToken(b) });
        return (res.body.reports as { trigger: string; day: string }[]).filter((r) => r.trigger === 'schedule');
      };
      const leaders = [
        { url: a.url, token },
        { url: b.url, token: await adminToken(b) },
      ];
      // The report time has passed but no agent has reported: no empty report is made.
      await aFullJobRun('daily_report', ...leaders);
      expect(await scheduled()).toEqual([]);
      for (const e of agentReports().slice(0, 1)) expect((await postEvent(a.url, a.apiKey, e)).status).toBe(201);
      await waitFor('the scheduled report', async () => (await scheduled()).length > 0);
      await aFullJobRun('daily_report', ...leaders); // a later check, on whichever daemon leads
      const reports = await scheduled();
      expect(reports).toHaveLength(1);
      expect(reports[0].day).toBe(new Date().toISOString().slice(0, 10));
      expect((await api(a, 'GET', '/api/v1/reports', { token })).body.reports).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
