import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startSmtpPeer, type SmtpPeer } from '../peers/smtp.peer.js';
import { trpc } from '../peers/trpc.js';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';

describe('HTTP hardening', () => {
  let sac: TestSac;
  let smtp: SmtpPeer;
  beforeAll(async () => {
    smtp = await startSmtpPeer('sac', 'mail-pass');
    sac = await startTestSac('sqlite', { SAC_METRICS_TOKEN: METRICS_TOKEN, SAC_SMTP_FROM: 'sac@example.com', SAC_SMTP_TO: 'ops@example.com' });
  });
  afterAll(async () => {
    await sac?.close();
    await smtp?.close();
  });

  it('sends X-Content-Type-Options: nosniff on every kind of answer', async () => {
    const answers = [
      await fetch(`${sac.url}/health`),
      await fetch(`${sac.url}/api/v1/no-such-route`),
      await fetch(`${sac.url}/trpc/system.info`),
      await fetch(`${sac.url}/api/v1/auth/me`),
      await fetch(`${sac.url}/api/v1/events`, { method: 'POST', body: '{}' }),
    ];
    const ingest = await postEvent(sac.url, sac.apiKey, buildEvent());
    expect(ingest.status).toBe(201);
    for (const res of [...answers.map((r) => r.headers), ingest.headers]) expect(res.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers loopback names and IP literals, and refuses other Host names with 421 (DNS rebinding)', async () => {
    const port = new URL(sac.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST', '10.1.2.3']) {
      expect((await rawRequest(sac.url, { path: '/health', headers: { Host: host } })).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'localhost.evil.example', 'a b']) {
      const res = await rawRequest(sac.url, { path: '/health', headers: { Host: host } });
      expect(res.status, host).toBe(421);
      expect(JSON.parse(res.body).error.code).toBe('request/host_not_allowed');
    }
    const ingest = await rawRequest(sac.url, {
      method: 'POST',
      path: '/api/v1/events',
      headers: { Host: 'rebound.example', 'Content-Type': 'application/json', Authorization: `Bearer ${sac.apiKey}` },
      body: JSON.stringify(buildEvent()),
    });
    expect(ingest.status).toBe(421);
  });

  it('keeps /metrics for admins and the scraper token', async () => {
    const metrics = (token?: string) => fetch(`${sac.url}/metrics`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect((await metrics()).status).toBe(401);
    expect((await metrics('not-the-token-0123456789abcdef')).status).toBe(401);
    expect((await metrics(await userToken(sac, 'monitor'))).status).toBe(403);
    const admin = await metrics(await adminToken(sac));
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('sac_ingest_queue_length');
    expect((await metrics(METRICS_TOKEN)).status).toBe(200);
  });

  it('refuses passwords from the shipped common-password list, also padded or repeated', async () => {
    const admin = await adminToken(sac);
    for (const password of ['Sunshine2000!', 'baseballbaseball', '1qaz2wsx3edc4rfv']) {
      const res = await api(sac, 'POST', '/api/v1/users', { token: admin, body: { username: `u${Date.now()}`, password, role: 'monitor' } });
      expect(res.status, password).toBe(400);
      expect(res.body.error.code).toBe('user/weak_password');
    }
    await expect(createUser(sac, 'monitor', { password: 'Lantern-Quarry-Violet-7' })).resolves.toBeDefined();
  });

  it('insists on STARTTLS for smtp:// except to a literal loopback address', async () => {
    const admin = await adminToken(sac);
    const send = async (url: string) => {
      expect((await api(sac, 'PATCH', '/api/v1/settings/smtp', { token: admin, body: { url } })).status).toBe(200);
      return trpc(sac, admin, 'mutation', 'notifications.test', { channel: 'smtp' });
    };
    const before = smtp.mails.length;
    // The peer offers no STARTTLS: named by host name, the mail and password must not go out in clear.
    const named = await send(smtp.url.replace('127.0.0.1', 'localhost'));
    expect(named.data.ok).toBe(false);
    // nodemailer asked for STARTTLS, the peer refused it, and nothing else was sent.
    expect(named.data.deliveries[0].error).toContain('command not recognized');
    expect(smtp.mails.length).toBe(before);
    const local = await send(smtp.url);
    expect(local.data.ok).toBe(true);
    expect(smtp.mails.length).toBe(before + 1);
  });
});

describe('HTTP hardening, configured', () => {
  it('serves the names in SAC_ALLOWED_HOSTS only, and an open /metrics when asked', async () => {
    const sac = await startTestSac('sqlite', { SAC_ALLOWED_HOSTS: 'sac.example.org, *.corp.example', SAC_METRICS_ACCESS: 'public' });
    try {
      const status = async (host: string) => (await rawRequest(sac.url, { path: '/health', headers: { Host: host } })).status;
      expect(await status('sac.example.org')).toBe(200);
      expect(await status('soc.corp.example:8080')).toBe(200);
      expect(await status('corp.example')).toBe(421);
      expect(await status('localhost')).toBe(421);
      expect(await status('127.0.0.1')).toBe(200);
      expect((await fetch(`${sac.url}/metrics`)).status).toBe(200);
    } finally {
      await sac.close();
    }
  });
});
