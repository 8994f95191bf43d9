import { describe, expect, it } from 'vitest';
import { escapeHtml, mailMessage, pushMessage, telegramMessage, webhookBody } from './notify.format.js';
import type { NotificationContent } from '../../../shared/src/index.js';

const event: NotificationContent = {
  kind: 'event',
  event: {
    event_id: 'e1',
    type: 'rdp.bruteforce.burst',
    severity: 'high',
    title: 'Перебор <script>alert(1)</script> & co',
    summary: '4625 burst',
    hostname: 'RDS01',
    host_display: 'RDS01 (10.0.0.21)',
    occurred_at: '2026-06-03T09:14:31.004+10:00',
    actor_user: 'administrator',
    ip: '203.0.113.45',
  },
};
const en = { lang: 'en', timeZone: 'UTC', channel: 'telegram' } as const;
const ru = { lang: 'ru', timeZone: 'Europe/Moscow', channel: 'smtp' } as const;

describe('message formats', () => {
  it('Telegram HTML escapes user text and keeps Cyrillic', () => {
    const text = telegramMessage(event, en);
    expect(text).toContain('🔴 <b>HIGH · RDS01</b>');
    expect(text).toContain('Перебор &lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
    expect(text).not.toContain('<script>');
    expect(text).toContain('User: <code>administrator</code>');
  });
  it('Russian phrases', () => {
    expect(telegramMessage(event, ru)).toContain('<b>ВЫСОКАЯ · RDS01</b>');
    const problem: NotificationContent = {
      kind: 'problem',
      action: 'resolved',
      problem: { id: 'p1', host_id: 'h', hostname: 'RDS01', type: 't.x', rule: 'default', severity: 'high', title: 'T', status: 'resolved', count: 3, first_seen: '2026-06-03T00:00:00Z', last_seen: '2026-06-03T00:10:00Z' },
    };
    const mail = mailMessage(problem, ru, null);
    expect(mail.subject).toBe('[SAC] Проблема решена · ВЫСОКАЯ · RDS01 · T');
    expect(mail.text).toContain('Впервые: 2026-06-03 03:00:00 (Europe/Moscow)');
    const resolvedPush = JSON.parse(pushMessage(problem, ru)) as { data: { url: string }; actions: unknown[] };
    expect(resolvedPush.data.url).toBe('/problems/p1');
    expect(resolvedPush.actions).toEqual([]);
    const opened = JSON.parse(pushMessage({ ...problem, action: 'opened' } as NotificationContent, ru)) as { actions: unknown[] };
    expect(opened.actions).toEqual([{ action: 'acknowledge', title: 'Подтвердить' }]);
  });
  it('a problem names its top addresses and users with counts on Telegram, e-mail, push and webhook', () => {
    const problem: NotificationContent = {
      kind: 'problem',
      action: 'opened',
      problem: {
        id: 'p2', host_id: 'h', hostname: 'srv01', type: 'ssh.login.failed', rule: 'bruteforce', severity: 'high', title: 'SSH brute force', status: 'open',
        count: 30, first_seen: '2026-06-03T00:00:00Z', last_seen: '2026-06-03T00:10:00Z',
        facts: {
          addresses: [{ value: '203.0.113.7', count: 20 }, { value: '198.51.100.4', count: 10 }],
          users: [{ value: 'root', count: 12 }, { value: 'admin', count: 10 }, { value: '<b>', count: 8 }, { value: 'dev', count: 0 }],
          hosts: [{ value: 'srv01', count: 30 }],
        },
      },
    };
    const text = telegramMessage(problem, en);
    expect(text).toContain('Addresses: <code>203.0.113.7 (20), 198.51.100.4 (10)</code>');
    expect(text).toContain('Users: <code>root (12), admin (10), &lt;b&gt; (8), dev (0)</code>');
    // The problem's own host is named once, not again as a top list.
    expect(text).not.toContain('Hosts:');
    expect(telegramMessage(problem, ru)).toContain('Адреса: <code>203.0.113.7 (20), 198.51.100.4 (10)</code>');
    expect(mailMessage(problem, en, null).text).toContain('Users: root (12), admin (10), <b> (8), dev (0)');
    const push = JSON.parse(pushMessage(problem, en)) as { body: string };
    expect(push.body).toBe('SSH brute force\nAddresses: 203.0.113.7 (20), 198.51.100.4 (10)\nUsers: root (12), admin (10), <b> (8)');
    expect(webhookBody(problem, { id: 'o3', sentAt: 'x' }, en)).toMatchObject({ kind: 'problem', problem: { facts: { addresses: [{ value: '203.0.113.7', count: 20 }, { value: '198.51.100.4', count: 10 }] } } });
  });
  it('mail has text and escaped HTML', () => {
    const mail = mailMessage(event, en, null);
    expect(mail.subject).toBe('[SAC] HIGH · RDS01 · Перебор <script>alert(1)</script> & co');
    expect(mail.text).toContain('IP: 203.0.113.45');
    expect(mail.html).toContain('&lt;script&gt;');
    expect(mail.html).not.toContain('<script>');
  });
  it('webhook body is versioned', () => {
    const body = webhookBody(event, { id: 'o1', sentAt: '2026-06-03T00:00:00.000Z' }, en);
    expect(body).toMatchObject({ kind: 'event', version: 1, id: 'o1', event: { event_id: 'e1', severity: 'high' } });
    expect(webhookBody({ kind: 'test', requested_by: 'admin' }, { id: 'o2', sentAt: 'x' }, { ...en, channel: 'webhook' })).toMatchObject({
      kind: 'test',
      version: 1,
      message: 'The webhook channel works. Sent by admin.',
    });
  });
  it('push payload is JSON with title, body and tag', () => {
    const p = JSON.parse(pushMessage(event, en)) as { title: string; tag: string; data: { ref: string } };
    expect(p.title).toBe('🔴 HIGH · RDS01');
    expect(p.tag).toBe('event:e1');
    expect(p.data).toEqual({ kind: 'event', ref: 'e1', url: '/events/e1' });
  });
  it('long Telegram messages are cut at a line end below 4096', () => {
    const long: NotificationContent = { ...event, event: { ...(event as { event: object }).event, summary: 'x'.repeat(5000) } } as NotificationContent;
    const text = telegramMessage(long, en);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.endsWith('…')).toBe(true);
  });
  it('a long report summary keeps as many whole host lines as fit', () => {
    const hosts = Array.from({ length: 200 }, (_, i) => ({
      host_id: `h${i}`,
      hostname: `host-${String(i).padStart(3, '0')}`,
      platform: 'ssh' as const,
      successful_logins: i,
      failed_logins: 2 * i,
      active_bans: 0,
      top_failed_ips: [],
      active_users: [],
      reported_at: '2026-06-03T09:00:00Z',
    }));
    const report: NotificationContent = {
      kind: 'report',
      report_id: 'r1',
      day: '2026-06-03',
      summary: {
        period_from: '2026-06-02T09:00:00Z',
        period_to: '2026-06-03T09:00:00Z',
        hosts,
        totals: { hosts: 200, ssh_hosts: 200, rdp_hosts: 0, successful_logins: 1, failed_logins: 2, active_bans: 0 },
        top_failed_ips: [{ ip: '203.0.113.9', count: 5 }],
      },
    };
    const text = telegramMessage(report, en);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain('host-000 (ssh): ✔ 0 · ✖ 0');
    expect(text).toContain('host-040 (ssh)');
    expect(text.endsWith('…')).toBe(true);
  });
  it('escapeHtml escapes quotes', () => {
    expect(escapeHtml(`"'`)).toBe('&quot;&#39;');
  });
});

describe('an approval request', () => {
  const approval: NotificationContent = {
    kind: 'approval',
    approval: {
      id: 'a1',
      action: 'session_logoff',
      summary: 'Log off session 2 on RDS01',
      hostnames: ['RDS01'],
      reason: 'ушёл <домой>',
      requested_by: 'anna',
      expires_at: '2026-06-03T12:30:00.000Z',
    },
  };
  it('is pushed in the approver language with Approve and Deny, its hosts, reason, requester and expiry, and no secret', () => {
    const push = JSON.parse(pushMessage(approval, ru)) as { title: string; body: string; tag: string; data: unknown; actions: unknown[] };
    expect(push).toEqual({
      title: '🔐 Нужно подтверждение',
      body: 'Log off session 2 on RDS01\nЗапросил anna: ушёл <домой>\nХосты: RDS01\nИстекает: 2026-06-03 15:30:00 (Europe/Moscow)',
      tag: 'approval:a1',
      data: { kind: 'approval', ref: 'a1', url: '/approvals/a1' },
      actions: [
        { action: 'approve', title: 'Одобрить' },
        { action: 'deny', title: 'Отклонить' },
      ],
    });
    expect(telegramMessage(approval, en)).toContain('Requested by anna: ушёл &lt;домой&gt;');
    expect(webhookBody(approval, { id: 'o9', sentAt: 'x' }, en)).toMatchObject({ kind: 'approval', approval: { id: 'a1', summary: 'Log off session 2 on RDS01' } });
  });
});
