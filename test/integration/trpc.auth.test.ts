import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoginResponse, LoginResult } from '../../shared/src/index.js';
import type { AppRouter } from '../../daemon/src/server/app-router.js';
import { adminToken, api } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

function client(sac: TestSac, token: string | null = null) {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${sac.url}/trpc`, headers: () => (token ? { Authorization: `Bearer ${token}` } : {}) })],
  });
}

async function appCode(call: Promise<unknown>): Promise<string | null> {
  try {
    await call;
    return 'ok';
  } catch (err) {
    if (err instanceof TRPCClientError) return (err.data as { appCode: string | null; code: string }).appCode ?? err.data.code;
    throw err;
  }
}


/** These users have no second factor: the password step answers the session itself. */
function signedIn(result: LoginResult): LoginResponse {
  if (!('token' in result)) throw new Error(`expected a session, got a ${result.second_factor} step`);
  return result;
}

describe.each(STORE_KINDS)('console tRPC: auth, users, settings, keys, audit on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('signs in, renews, manages a user and settings, and reads the audit log through the typed client', async () => {
    const anon = client(sac);
    const session = signedIn(await anon.auth.login.mutate({ username: sac.adminUsername, password: sac.adminPassword }));
    expect(session.user.role).toBe('admin');
    const admin = client(sac, session.token);
    expect(await admin.auth.me.query()).toMatchObject({ username: 'admin' });
    const renewed = await admin.auth.renew.mutate();
    expect(Date.parse(renewed.expires_at)).toBeGreaterThanOrEqual(Date.parse(session.expires_at));

    const created = await admin.users.create.mutate({ username: 'trpc-user', password: 'Typed-Client-Pass-77', role: 'monitor' });
    expect(await admin.users.byId.query({ id: created.id })).toMatchObject({ username: 'trpc-user', active: true });
    expect(await appCode(admin.users.create.mutate({ username: 'TRPC-user', password: 'Typed-Client-Pass-77', role: 'monitor' }))).toBe('user/duplicate');
    const me = await admin.auth.me.query();
    expect(await appCode(admin.users.update.mutate({ id: me.id, patch: { role: 'monitor' } }))).toBe('user/last_admin');

    const monitorSession = signedIn(await anon.auth.login.mutate({ username: 'trpc-user', password: 'Typed-Client-Pass-77' }));
    const monitor = client(sac, monitorSession.token);
    expect(await appCode(monitor.users.list.query())).toBe('FORBIDDEN');
    expect(await appCode(anon.auth.me.query())).toBe('UNAUTHORIZED');

    const view = await admin.settings.update.mutate({ category: 'webhook', values: { url: 'https://hooks.example/sac', secret: 'hook-secret-123' } });
    expect(view.values).toMatchObject({ url: 'https://hooks.example/sac', secret: { set: true } });
    expect((await admin.settings.list.query()).map((s) => s.category)).toContain('git_repos');
    expect(await appCode(admin.settings.update.mutate({ category: 'webhook', values: { timeout_ms: 5 } }))).toBe('settings/invalid');
    const reset = await admin.settings.reset.mutate({ category: 'webhook' });
    expect(reset.values.secret).toEqual({ set: false });

    const key = await admin.apiKeys.create.mutate({ label: 'typed' });
    expect((await admin.apiKeys.list.query()).some((k) => k.id === key.api_key.id)).toBe(true);
    expect(await admin.apiKeys.revoke.mutate({ id: key.api_key.id })).toEqual({ revoked: true });

    await admin.users.update.mutate({ id: created.id, patch: { active: false } });
    expect(await appCode(monitor.auth.me.query())).toBe('UNAUTHORIZED');
    expect(await admin.users.delete.mutate({ id: created.id })).toEqual({ deleted: true });

    const audit = await admin.audit.list.query({ limit: 100 });
    const actions = new Set(audit.map((e) => e.action));
    for (const a of ['auth.login_succeeded', 'user.created', 'user.updated', 'user.deleted', 'settings.updated', 'settings.reset', 'apikey.created', 'apikey.revoked']) {
      expect(actions, a).toContain(a);
    }
    expect(JSON.stringify(audit)).not.toContain('hook-secret-123');
    // The total beside a page: two entries a page, the count of every match.
    const users = await admin.audit.list.query({ action: 'user.', limit: 2 });
    const usersTotal = await admin.audit.count.query({ action: 'user.' });
    expect(users).toHaveLength(2);
    expect(usersTotal).toBe(audit.filter((e) => e.action.startsWith('user.')).length);
    expect(usersTotal).toBeGreaterThanOrEqual(3);
    expect(await admin.audit.count.query({ action: 'user.', before: users[1].at })).toBeLessThanOrEqual(usersTotal - 2);
  });

  it('answers auth.me with the same user as GET /api/v1/auth/me', async () => {
    const token = await adminToken(sac);
    const rest = await api(sac, 'GET', '/api/v1/auth/me', { token });
    expect(rest.status).toBe(200);
    const viaTrpc = await client(sac, token).auth.me.query();
    expect(viaTrpc).toMatchObject({ username: sac.adminUsername, role: 'admin' });
    expect(rest.body).toEqual({ user: viaTrpc });
  });

  it('answers a locked username with TOO_MANY_REQUESTS and retry_after_s', async () => {
    const anon = client(sac);
    for (let i = 0; i < 3; i++) expect(await appCode(anon.auth.login.mutate({ username: 'nobody', password: 'Wrong-pass-1234' }))).toBe('auth/invalid_credentials');
    try {
      await anon.auth.login.mutate({ username: 'nobody', password: 'Wrong-pass-1234' });
      expect.unreachable();
    } catch (err) {
      const data = (err as TRPCClientError<AppRouter>).data as unknown as { code: string; details: { retry_after_s: number } };
      expect(data.code).toBe('TOO_MANY_REQUESTS');
      expect(data.details.retry_after_s).toBeGreaterThan(800);
    }
  });
});
