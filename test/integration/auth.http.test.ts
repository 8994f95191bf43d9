import { statSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login, userToken } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

describe.each(STORE_KINDS)('console sign-in and users on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('signs the first-start admin in and answers /me and renew', async () => {
    const res = await login(sac, sac.adminUsername, sac.adminPassword);
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ username: 'admin', role: 'admin' });
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(11 * 3600_000);
    const me = await api(sac, 'GET', '/api/v1/auth/me', { token: res.body.token });
    expect(me).toMatchObject({ status: 200, body: { user: { username: 'admin', role: 'admin' } } });
    const renewed = await api(sac, 'POST', '/api/v1/auth/renew', { token: res.body.token });
    expect(renewed.status).toBe(200);
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: renewed.body.token })).status).toBe(200);
  });

  it('answers 401 for a wrong password, an unknown user, a forged or missing token, and 400 for a bad body', async () => {
    expect((await login(sac, sac.adminUsername, `${sac.adminPassword}x`)).status).toBe(401);
    expect((await login(sac, 'nobody-here', 'whatever-password')).body).toMatchObject({ error: { code: 'auth/invalid_credentials' } });
    expect((await api(sac, 'GET', '/api/v1/auth/me')).status).toBe(401);
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' })).status).toBe(401);
    const bad = await api(sac, 'POST', '/api/v1/auth/login', { body: { user: 'admin' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('request/invalid');
  });

  it('creates, edits and deletes users over REST; rejects weak passwords and duplicate names', async () => {
    const token = await adminToken(sac);
    const created = await createUser(sac, 'monitor', { display_name: 'Night shift' });
    expect(created.user).toMatchObject({ role: 'monitor', active: true, display_name: 'Night shift' });
    expect(created.user).not.toHaveProperty('password_hash');
    const dup = await api(sac, 'POST', '/api/v1/users', {
      token,
      body: { username: created.user.username.toUpperCase(), password: 'Another-long-pass-1', role: 'monitor' },
    });
    expect(dup.status).toBe(409);
    for (const password of ['short', 'password1234', 'aaaaaaaaaaaaaaaa']) {
      const weak = await api(sac, 'POST', '/api/v1/users', { token, body: { username: 'weakling', password, role: 'monitor' } });
      expect(weak.status, password).toBe(400);
    }
    const patched = await api(sac, 'PATCH', `/api/v1/users/${created.user.id}`, { token, body: { role: 'admin', display_name: null } });
    expect(patched).toMatchObject({ status: 200, body: { role: 'admin', display_name: null } });
    const list = await api(sac, 'GET', '/api/v1/users', { token });
    expect(list.body.users.map((u: { username: string }) => u.username)).toContain(created.user.username);
    expect((await api(sac, 'DELETE', `/api/v1/users/${created.user.id}`, { token })).status).toBe(204);
    expect((await api(sac, 'DELETE', `/api/v1/users/${created.user.id}`, { token })).status).toBe(404);
  });

  it('shows each user\'s latest sign-in: none before the first, then the time of the newest (a failed one does not count)', async () => {
    const token = await adminToken(sac);
    const { user, password } = await createUser(sac, 'monitor');
    const row = async () => (await api(sac, 'GET', '/api/v1/users', { token })).body.users.find((u: { id: string }) => u.id === user.id);
    expect(user.last_login_at).toBeNull();
    expect((await row()).last_login_at).toBeNull();
    const before = Date.now();
    expect((await login(sac, user.username, password)).status).toBe(200);
    const first = Date.parse((await row()).last_login_at);
    expect(first).toBeGreaterThanOrEqual(before - 1000);
    expect(first).toBeLessThanOrEqual(Date.now());
    expect((await login(sac, user.username, `${password}-wrong`)).status).toBe(401);
    expect(Date.parse((await row()).last_login_at)).toBe(first);
    await new Promise((r) => setTimeout(r, 20));
    expect((await login(sac, user.username, password)).status).toBe(200);
    expect(Date.parse((await row()).last_login_at)).toBeGreaterThan(first);
    const one = await trpc(sac, token, 'query', 'users.byId', { id: user.id });
    expect(one.data.last_login_at).toBe((await row()).last_login_at);
  });

  it('rejects the token of a deactivated or deleted user, and tokens issued before a password change', async () => {
    const admin = await adminToken(sac);
    const { user, password } = await createUser(sac, 'monitor');
    const token = (await login(sac, user.username, password)).body.token as string;
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(200);

    await api(sac, 'PATCH', `/api/v1/users/${user.id}`, { token: admin, body: { active: false } });
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
    expect((await login(sac, user.username, password)).status).toBe(401);
    await api(sac, 'PATCH', `/api/v1/users/${user.id}`, { token: admin, body: { active: true } });
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(200);

    const newPassword = 'Brand-new-secret-42';
    expect((await api(sac, 'PATCH', `/api/v1/users/${user.id}`, { token: admin, body: { password: newPassword } })).status).toBe(200);
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
    expect((await login(sac, user.username, password)).status).toBe(401);
    const fresh = (await login(sac, user.username, newPassword)).body.token as string;
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: fresh })).status).toBe(200);

    await api(sac, 'DELETE', `/api/v1/users/${user.id}`, { token: admin });
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: fresh })).status).toBe(401);
  });

  it('lets a user change their own password: a new session comes back, older tokens stop working', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const first = (await login(sac, user.username, password)).body.token as string;
    const second = (await login(sac, user.username, password)).body.token as string;
    const wrong = await api(sac, 'POST', '/api/v1/auth/password', { token: first, body: { current_password: 'not-it-at-all', new_password: 'My-Own-New-Pass-88' } });
    expect(wrong).toMatchObject({ status: 400, body: { error: { code: 'user/wrong_password' } } });
    const weak = await api(sac, 'POST', '/api/v1/auth/password', { token: first, body: { current_password: password, new_password: 'password1234' } });
    expect(weak.status).toBe(400);
    const changed = await api(sac, 'POST', '/api/v1/auth/password', { token: first, body: { current_password: password, new_password: 'My-Own-New-Pass-88' } });
    expect(changed.status).toBe(200);
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: changed.body.token })).status).toBe(200);
    for (const old of [first, second]) expect((await api(sac, 'GET', '/api/v1/auth/me', { token: old })).status).toBe(401);
    expect((await login(sac, user.username, 'My-Own-New-Pass-88')).status).toBe(200);
  });

  it('never removes or demotes the last active admin', async () => {
    const token = await adminToken(sac);
    const me = (await api(sac, 'GET', '/api/v1/auth/me', { token })).body.user;
    const others = (await api(sac, 'GET', '/api/v1/users', { token })).body.users.filter(
      (u: { role: string; active: boolean; id: string }) => u.role === 'admin' && u.active && u.id !== me.id,
    );
    for (const u of others) await api(sac, 'DELETE', `/api/v1/users/${u.id}`, { token });
    for (const body of [{ role: 'monitor' }, { active: false }]) {
      const res = await api(sac, 'PATCH', `/api/v1/users/${me.id}`, { token, body });
      expect(res).toMatchObject({ status: 409, body: { error: { code: 'user/last_admin' } } });
    }
    expect((await api(sac, 'DELETE', `/api/v1/users/${me.id}`, { token })).status).toBe(409);
    // With a second admin, the two demoting each other at once leaves at least one admin.
    const second = await createUser(sac, 'admin');
    const secondToken = (await login(sac, second.user.username, second.password)).body.token as string;
    const results = await Promise.all([
      api(sac, 'PATCH', `/api/v1/users/${me.id}`, { token: secondToken, body: { role: 'monitor' } }),
      api(sac, 'PATCH', `/api/v1/users/${second.user.id}`, { token, body: { role: 'monitor' } }),
    ]);
    const admins = (await sac.sac.store.users.list()).filter((u) => u.role === 'admin' && u.active);
    expect(admins.length).toBeGreaterThanOrEqual(1);
    expect(results.some((r) => r.status === 409 || r.status === 401 || r.status === 403)).toBe(true);
    // Restore the first admin for later tests.
    if (!admins.some((a) => a.id === me.id)) await sac.sac.users.update(me.id, { role: 'admin' }, { user: null, ip: undefined });
  });

  it('gives a monitor 403 on user management', async () => {
    const token = await userToken(sac, 'monitor');
    expect((await api(sac, 'GET', '/api/v1/users', { token })).status).toBe(403);
  });
});

describe('first start without SAC_ADMIN_PASSWORD', () => {
  it('generates the admin password, writes it 0600, and it signs in', async () => {
    const sac = await startTestSac('sqlite', { SAC_ADMIN_PASSWORD: '' });
    try {
      expect(sac.sac.generatedAdminPassword).toMatch(/^[A-Za-z0-9]{24}$/);
      expect(statSync(sac.sac.adminPasswordFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(sac.sac.adminPasswordFile, 'utf8').trim()).toBe(sac.sac.generatedAdminPassword);
      expect((await login(sac, 'admin', sac.adminPassword)).status).toBe(200);
      expect(sac.logs.join('\n')).not.toContain(sac.adminPassword);
    } finally {
      await sac.close();
    }
  });
});
