import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { reportNeverDue } from '../peers/notify-env.js';

function totpFor(secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
}

describe.each(STORE_KINDS)('two-factor sign-in (TOTP) on %s', (kind) => {
  let t: TestSac;
  let token: string;
  const clock = new TestClock();

  beforeAll(async () => {
    t = await startTestSac(kind, reportNeverDue(), { clock });
    token = await adminToken(t);
  });

  afterAll(async () => {
    await t?.close();
  });

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
});
