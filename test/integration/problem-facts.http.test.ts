import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProblemDetailView } from '../../shared/src/index.js';
import { adminToken, api } from '../helpers/auth.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent, sshBruteForceAttempt } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { startSmtpPeer, type SmtpPeer } from '../peers/smtp.peer.js';
import { startWebhookPeer, type WebhookPeer } from '../peers/webhook.peer.js';

const WEBHOOK_SECRET = 'hook-secret-for-facts';
const START_MS = Date.parse('2026-06-03T11:02:10Z');

const ADDRESSES = [
  { value: '203.0.113.9', count: 20 },
  { value: '198.51.100.23', count: 10 },
];
const USERS = [
  { value: 'admin', count: 12 },
  { value: 'root', count: 10 },
  { value: 'oracle', count: 8 },
];

describe.each(STORE_KINDS)('a problem states its facts on %s', (kind) => {
  let hook: WebhookPeer;
  let smtp: SmtpPeer;
  let t: TestSac;
  let token: string;
  const clock = new TestClock();

  beforeAll(async () => {
    [hook, smtp] = await Promise.all([startWebhookPeer(WEBHOOK_SECRET), startSmtpPeer('sac', 'mail-pass')]);
    t = await startTestSac(kind, {
      SAC_WEBHOOK_URL: hook.url,
      SAC_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SAC_SMTP_URL: smtp.url,
      SAC_SMTP_FROM: 'SAC <sac@example.test>',
      SAC_SMTP_TO: 'soc@example.test',
      SAC_NOTIFY_MIN_SEVERITY: 'warning',
      SAC_ESCALATION_CHECK_SECONDS: '0.2',
      ...FAST_DELIVERY,
      ...reportNeverDue(),
    }, { clock });
    token = await adminToken(t);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([hook?.close(), smtp?.close()]);
  });

  it('a 30-event SSH brute force names its addresses and users with counts in the detail, the webhook and the e-mail', async () => {
    const set = await api(t, 'PATCH', '/api/v1/settings/escalation', { token, body: { policies: { warning: { interval_minutes: 15, max_repeats: 1 } } } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const events = Array.from({ length: 30 }, (_, i) => buildEvent(sshBruteForceAttempt(i, new Date(START_MS + i * 2000).toISOString())));
    // The first alone: the opening is notified with the facts it had then.
    expect((await postEvent(t.url, t.apiKey, events[0])).status).toBe(201);
    for (const e of events.slice(1)) expect((await postEvent(t.url, t.apiKey, e)).status).toBe(201);

    const list = await api(t, 'GET', '/api/v1/problems?type=ssh.login.failed', { token });
    expect(list.status).toBe(200);
    const problems = list.body.items as { id: string; count: number }[];
    expect(problems.map((p) => p.count)).toEqual([30]);
    const id = problems[0].id;

    const detail = await api(t, 'GET', `/api/v1/problems/${id}`, { token });
    expect(detail.status).toBe(200);
    expect((detail.body as ProblemDetailView).facts).toEqual({ addresses: ADDRESSES, users: USERS, hosts: [{ value: 'web-07', count: 30 }] });

    const opened = await waitFor('the opening on the webhook', () => hook.deliveries.find((d) => d.body.kind === 'problem' && d.body.action === 'opened' && d.body.problem.id === id));
    expect(opened.body.problem.facts).toEqual({ addresses: [{ value: '203.0.113.9', count: 1 }], users: [{ value: 'root', count: 1 }], hosts: [{ value: 'web-07', count: 1 }] });

    // A reminder of the problem that grew names its facts as they stand now.
    clock.advance(15 * 60_000);
    const reminded = await waitFor('the reminder on the webhook', () => hook.deliveries.find((d) => d.body.kind === 'problem' && d.body.action === 'escalated' && d.body.problem.id === id));
    expect(reminded.body.problem.facts).toEqual({ addresses: ADDRESSES, users: USERS, hosts: [{ value: 'web-07', count: 30 }] });

    // The resolution goes where the opening went, with the facts as they stand at the end.
    expect((await api(t, 'POST', `/api/v1/problems/${id}/resolve`, { token, body: {} })).status).toBe(200);
    const resolved = await waitFor('the resolution on the webhook', () => hook.deliveries.find((d) => d.body.kind === 'problem' && d.body.action === 'resolved' && d.body.problem.id === id));
    expect(resolved.signatureValid).toBe(true);
    expect(resolved.body.problem.facts).toEqual({ addresses: ADDRESSES, users: USERS, hosts: [{ value: 'web-07', count: 30 }] });
    const mail = await waitFor('the resolution e-mail', () => smtp.mails.find((m) => m.subject?.includes('resolved') && m.text?.includes('web-07')));
    expect(mail.text).toContain('Addresses: 203.0.113.9 (20), 198.51.100.23 (10)');
    expect(mail.text).toContain('Users: admin (12), root (10), oracle (8)');
    expect(mail.html).toContain('203.0.113.9 (20), 198.51.100.23 (10)');
  });
});
