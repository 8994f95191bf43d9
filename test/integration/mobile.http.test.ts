import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login, type ApiResponse } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { openStream } from '../helpers/stream.js';
import { FAST_DELIVERY, reportNeverDue } from '../peers/notify-env.js';
import { startPushPeer, type PushPeer } from '../peers/push.peer.js';
import { trpc } from '../peers/trpc.js';

const MAX_WRONG_CODES = 8;

describe.each(STORE_KINDS)('mobile devices over HTTP: %s', (kind) => {
  let t: TestSac;
  let push: PushPeer;
  let admin: string;

  beforeAll(async () => {
    push = await startPushPeer();
    t = await startTestSac(kind, { ...FAST_DELIVERY, ...reportNeverDue(), SAC_LOGIN_ADDRESS_MAX_FAILURES: String(MAX_WRONG_CODES), SAC_PUSH_ALLOW_LOOPBACK: 'true' });
    admin = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
    await push?.close();
  });

  async function issue(userId: string, body: Record<string, unknown> = {}): Promise<ApiResponse> {
    return api(t, 'POST', '/api/v1/mobile/enrollment-codes', { token: admin, body: { user_id: userId, ...body } });
  }

  async function enroll(code: string, extra: Record<string, unknown> = {}): Promise<ApiResponse> {
    return api(t, 'POST', '/api/v1/mobile/enroll', {
      body: { code, device_uuid: randomUUID(), name: 'On-call phone', platform: 'android', app_version: '1.0', ...extra },
    });
  }

  const refresh = (token: string) => api(t, 'POST', '/api/v1/mobile/token', { body: { refresh_token: token } });

  async function enrolledMonitor(extra: Record<string, unknown> = {}) {
    const { user } = await createUser(t, 'monitor');
    const code = (await issue(user.id)).body.code as string;
    const res = await enroll(code, extra);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { user, code, tokens: res.body };
  }

  /** Raises a new problem (a fresh host) and returns its id once the device's push for it arrived, or null. */
  async function raiseProblem(): Promise<string> {
    const hostname = `M-${randomUUID().slice(0, 8).toUpperCase()}`;
    const ev = buildEvent({ type: 'rdp.bruteforce.burst', severity: 'high', title: 'Burst', host: { hostname } });
    expect((await postEvent(t.url, t.apiKey, ev)).status).toBe(201);
    const list = await waitFor(`the problem on ${hostname}`, async () => {
      const r = await api(t, 'GET', `/api/v1/problems?host=${hostname}`, { token: admin });
      return (r.body.items as { id: string; hostname: string }[]).find((p) => p.hostname === hostname);
    });
    return list.id;
  }

  it('issues single-use codes (admin only, hashed, listed) and enrolls a device with them', async () => {
    const { user, password } = await createUser(t, 'monitor');
    const monitor = (await login(t, user.username, password)).body.token as string;
    expect((await api(t, 'POST', '/api/v1/mobile/enrollment-codes', { token: monitor, body: { user_id: user.id } })).status).toBe(403);
    expect((await issue(randomUUID())).body.error.code).toBe('user/not_found');
    expect((await issue(user.id, { ttl_minutes: 0 })).status).toBe(400);

    const before = Date.now();
    const issued = await issue(user.id);
    const after = Date.now();
    expect(issued.status).toBe(201);
    expect(issued.body.code).toMatch(/^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$/);
    expect(issued.body.enroll_url).toBe(`${t.url}/m/enroll#code=${issued.body.code}`);
    // Fifteen minutes from when the daemon issued it, some time during the request.
    const expiresAt = Date.parse(issued.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 15 * 60_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 15 * 60_000);

    const listed = await api(t, 'GET', '/api/v1/mobile/enrollment-codes', { token: admin });
    const row = listed.body.codes.find((c: { id: string }) => c.id === issued.body.id);
    expect(row).toMatchObject({ user_id: user.id, username: user.username, status: 'pending' });
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.code.replace('-', ''));

    // Typed lower-case without the dash; the push subscription is stored against the device.
    const code = (issued.body.code as string).replace('-', '').toLowerCase();
    const res = await enroll(code, { push: push.subscription });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      expires_in: 900,
      device: { user_id: user.id, username: user.username, status: 'enrolled', platform: 'android', push: true },
      user: { id: user.id, role: 'monitor' },
    });
    expect(res.body.refresh_token).toMatch(/^sacr_[A-Za-z0-9]{43}$/);
    expect((await enroll(code)).body.error.code).toBe('mobile/invalid_code');
    expect((await api(t, 'GET', '/api/v1/mobile/enrollment-codes', { token: admin })).body.codes.find((c: { id: string }) => c.id === issued.body.id)).toMatchObject({
      status: 'used',
      used_by: res.body.device.id,
    });

    // The access token acts as the user; it cannot be turned into a console token.
    const access = res.body.access_token as string;
    expect((await api(t, 'GET', '/api/v1/problems', { token: access })).status).toBe(200);
    expect((await api(t, 'GET', '/api/v1/users', { token: access })).status).toBe(403);
    expect((await api(t, 'POST', '/api/v1/auth/renew', { token: access })).status).toBe(403);
    const change = await api(t, 'POST', '/api/v1/auth/password', { token: access, body: { current_password: password, new_password: 'Another-long-pass-42' } });
    expect(change.status).toBe(403);
    expect((await login(t, user.username, password)).status).toBe(200);
    const own = await api(t, 'GET', '/api/v1/devices', { token: access });
    expect(own.body.devices.map((d: { id: string }) => d.id)).toEqual([res.body.device.id]);
    const all = await api(t, 'GET', '/api/v1/devices', { token: admin });
    expect(all.body.devices.map((d: { id: string }) => d.id)).toContain(res.body.device.id);

    // A new problem reaches the device with its tap target and the Acknowledge action.
    const problemId = await raiseProblem();
    const delivery = await waitFor('the push delivery of the problem', () => push.deliveries.find((d) => d.payload.data?.ref === problemId));
    expect(delivery.vapidValid).toBe(true);
    expect(delivery.payload).toMatchObject({ data: { kind: 'problem', url: `/problems/${problemId}` }, actions: [{ action: 'acknowledge', title: 'Acknowledge' }] });
    expect((await api(t, 'POST', `/api/v1/problems/${problemId}/acknowledge`, { token: access, body: {} })).status).toBe(200);

    // Revoked: access and refresh answer 401 at once, and the push subscription is gone.
    const revoked = await api(t, 'POST', `/devices/${res.body.device.id}/revoke`, { token: admin });
    expect(revoked.status).toBe(200);
    expect(revoked.body.device).toMatchObject({ status: 'revoked', push: true });
    expect((await api(t, 'GET', '/api/v1/problems', { token: access })).status).toBe(401);
    expect((await refresh(res.body.refresh_token)).status).toBe(401);
    const subs = await api(t, 'GET', '/api/v1/push/subscriptions', { token: admin });
    expect(JSON.stringify(subs.body)).not.toContain(push.subscription.endpoint);
    // A browser still subscribed gets the next problem: its push row and the revoked device's,
    // had that one been kept, are enqueued together.
    const browser = await startPushPeer();
    const subscribed = await api(t, 'POST', '/api/v1/push/subscriptions', { token: admin, body: { ...browser.subscription, label: 'still subscribed' } });
    expect(subscribed.status).toBe(201);
    try {
      const count = push.deliveries.length;
      const second = await raiseProblem();
      await waitFor('the browser push of the second problem', () => browser.deliveries.some((d) => d.payload.data?.ref === second));
      const rows = (await trpc(t, admin, 'query', 'notifications.deliveries', { limit: 500 })).data as { channel: string; ref: string }[];
      expect(rows.filter((r) => r.channel === 'push' && r.ref === second)).toHaveLength(1);
      expect(push.deliveries.filter((d) => d.payload.data?.ref === second)).toHaveLength(0);
      expect(push.deliveries.length).toBe(count);
    } finally {
      await api(t, 'DELETE', `/api/v1/push/subscriptions/${subscribed.body.id as string}`, { token: admin });
      await browser.close();
    }

    const audit = await api(t, 'GET', '/api/v1/audit?limit=200', { token: admin });
    const actions = JSON.stringify(audit.body);
    for (const a of ['mobile.code_issued', 'mobile.device_enrolled', 'mobile.device_revoked']) expect(actions).toContain(a);
  });

  it('rotates refresh tokens on every use; presenting a used one revokes the device', async () => {
    const { tokens } = await enrolledMonitor();
    const r1 = await refresh(tokens.refresh_token);
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api(t, 'GET', '/api/v1/devices', { token: r1.body.access_token })).status).toBe(200);
    const r2 = await refresh(r1.body.refresh_token);
    expect(r2.status).toBe(200);

    // The first token again: theft. Everything of the device stops, the newest pair included.
    const stolen = await refresh(tokens.refresh_token);
    expect(stolen.status).toBe(401);
    expect((await refresh(r2.body.refresh_token)).status).toBe(401);
    expect((await api(t, 'GET', '/api/v1/problems', { token: r2.body.access_token })).status).toBe(401);
    const device = (await api(t, 'GET', '/api/v1/devices', { token: admin })).body.devices.find((d: { id: string }) => d.id === tokens.device.id);
    expect(device.status).toBe('revoked');
    expect((await refresh('sacr_' + 'x'.repeat(43))).status).toBe(401);
    expect((await refresh('garbage')).status).toBe(401);
  });

  it('re-enrolls a known device_uuid into the same record and kills its old tokens', async () => {
    const uuid = randomUUID();
    const { user, tokens } = await enrolledMonitor({ device_uuid: uuid });
    const code2 = (await issue(user.id)).body.code as string;
    const again = await enroll(code2, { device_uuid: uuid, name: 'Renamed phone' });
    expect(again.status).toBe(200);
    expect(again.body.device).toMatchObject({ id: tokens.device.id, name: 'Renamed phone', status: 'enrolled' });
    expect((await api(t, 'GET', '/api/v1/problems', { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(tokens.refresh_token)).status).toBe(401);
    expect((await api(t, 'GET', '/api/v1/problems', { token: again.body.access_token })).status).toBe(200);
    const mine = (await api(t, 'GET', '/api/v1/devices', { token: again.body.access_token })).body.devices;
    expect(mine).toHaveLength(1);
    // The old token was killed by the re-enrollment, not stolen: the device stays enrolled.
    expect(mine[0].status).toBe('enrolled');
  });

  it("answers 401 on everything for a deactivated user's device, and deletes devices completely", async () => {
    const { user, tokens } = await enrolledMonitor();
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { token: admin, body: { active: false } })).status).toBe(200);
    expect((await api(t, 'GET', '/api/v1/devices', { token: tokens.access_token })).status).toBe(401);
    expect((await refresh(tokens.refresh_token)).status).toBe(401);
    expect((await issue(user.id)).body.error.code).toBe('mobile/user_inactive');

    const monitor = (await enrolledMonitor()).tokens;
    expect((await api(t, 'DELETE', `/api/v1/devices/${monitor.device.id}`, { token: monitor.access_token })).status).toBe(403);
    // An open live stream of the device ends with it, and cannot be reopened.
    const stream = await openStream(t, { token: monitor.access_token });
    expect(stream.status).toBe(200);
    expect((await api(t, 'DELETE', `/api/v1/devices/${monitor.device.id}`, { token: admin })).status).toBe(204);
    await Promise.race([stream.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('stream still open after delete')), 5000))]);
    expect((await openStream(t, { token: monitor.access_token })).status).toBe(401);
    expect((await api(t, 'DELETE', `/devices/${monitor.device.id}`, { token: admin })).status).toBe(404);
    expect((await api(t, 'POST', `/api/v1/devices/${monitor.device.id}/revoke`, { token: admin })).status).toBe(404);
    expect((await api(t, 'GET', '/api/v1/devices', { token: admin })).body.devices.map((d: { id: string }) => d.id)).not.toContain(monitor.device.id);
    expect((await refresh(monitor.refresh_token)).status).toBe(401);
  });

  it('revokes an unused code; lets a device replace its push subscription', async () => {
    const { user } = await createUser(t, 'monitor');
    const issued = (await issue(user.id)).body;
    expect((await api(t, 'DELETE', `/api/v1/mobile/enrollment-codes/${issued.id}`, { token: admin })).status).toBe(204);
    expect((await api(t, 'DELETE', `/api/v1/mobile/enrollment-codes/${issued.id}`, { token: admin })).status).toBe(404);
    expect((await enroll(issued.code)).status).toBe(401);

    const { tokens } = await enrolledMonitor();
    const set = await api(t, 'PUT', '/api/v1/mobile/push', { token: tokens.access_token, body: { push: push.subscription } });
    expect(set.status).toBe(200);
    expect(set.body.device.push).toBe(true);
    expect((await api(t, 'PUT', '/api/v1/mobile/push', { token: admin, body: { push: null } })).body.error.code).toBe('mobile/not_a_device');
    const cleared = await api(t, 'PUT', '/api/v1/mobile/push', { token: tokens.access_token, body: { push: null } });
    expect(cleared.body.device.push).toBe(false);
  });

  // Last: it throttles this test's address.
  it('throttles wrong codes per address like sign-in, with Retry-After', async () => {
    const { user } = await createUser(t, 'monitor');
    const good = (await issue(user.id)).body.code as string;
    // Earlier tests of this daemon already spent some of the address's allowance.
    let wrong = 0;
    while ((await enroll('ZZZZZ-ZZZZZ')).status === 401) wrong++;
    expect(wrong).toBeLessThan(MAX_WRONG_CODES);
    const blocked = await enroll(good);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('auth/too_many_attempts');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
