import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

/** Each sign-in is a 128 MiB scrypt check: ~0.3 s alone, seconds on a loaded machine; a test here makes about ten. */
const SIGN_INS_MS = 90_000;

describe.each(STORE_KINDS)('sign-in lock per user name on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_LOGIN_MAX_FAILURES: '4', SAC_LOGIN_LOCK_MINUTES: '15' });
  });
  afterAll(async () => {
    await sac?.close();
  });

  /** One sign-in with a wrong password: the error it is answered. */
  const wrong = async (username: string) => (await login(sac, username, 'not-the-password-at-all')).body.error;

  it('says how many attempts are left once two or fewer remain, then locks only that name', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const other = await createUser(sac, 'monitor');
    const first = await wrong(user.username);
    expect(first.code).toBe('auth/invalid_credentials');
    expect(first.details).toBeUndefined();
    expect((await wrong(user.username)).details).toEqual({ attempts_left: 2 });
    // The name is compared case-insensitively, as the lock is.
    expect((await wrong(user.username.toUpperCase())).details).toEqual({ attempts_left: 1 });
    expect((await wrong(user.username)).details).toEqual({ attempts_left: 0 });
    const locked = await login(sac, user.username, password);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('auth/too_many_attempts');
    expect((await login(sac, other.user.username, other.password)).status).toBe(200);
    // An unknown name counts the same way, so the answer says nothing about which names exist.
    await wrong('no-such-user-here');
    expect((await wrong('no-such-user-here')).details).toEqual({ attempts_left: 2 });
  }, SIGN_INS_MS);

  it('shows a locked user as locked until when, lets an admin lift the lock (audited) and refuses a monitor', async () => {
    const admin = await adminToken(sac);
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = await createUser(sac, 'monitor');
    const monitorToken = (await login(sac, monitor.user.username, monitor.password)).body.token as string;
    const before = Date.now();
    for (let i = 0; i < 4; i++) await wrong(user.username);

    const listed = (await api(sac, 'GET', '/api/v1/users', { token: admin })).body.users as { id: string; locked_until: string | null }[];
    const until = Date.parse(listed.find((u) => u.id === user.id)!.locked_until!);
    expect(until).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(listed.find((u) => u.id === monitor.user.id)!.locked_until).toBeNull();
    expect((await trpc(sac, admin, 'query', 'users.byId', { id: user.id })).data.locked_until).toBe(new Date(until).toISOString());

    const refused = await api(sac, 'POST', `/api/v1/users/${user.id}/unlock`, { token: monitorToken });
    expect(refused.status).toBe(403);
    expect((await trpc(sac, monitorToken, 'mutation', 'users.unlock', { id: user.id })).status).toBe(403);
    expect((await login(sac, user.username, password)).status).toBe(429);

    const unlocked = await api(sac, 'POST', `/api/v1/users/${user.id}/unlock`, { token: admin });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ id: user.id, locked_until: null });
    expect((await api(sac, 'GET', '/api/v1/users', { token: admin })).body.users.find((u: { id: string }) => u.id === user.id).locked_until).toBeNull();
    // The failures went with the lock: the next wrong password starts the count again.
    expect((await wrong(user.username)).details).toBeUndefined();
    expect((await login(sac, user.username, password)).status).toBe(200);

    const audit = await api(sac, 'GET', `/api/v1/audit?action=user.unlocked`, { token: admin });
    const entry = audit.body.entries.find((e: { target: string }) => e.target === `user:${user.id}`);
    expect(entry).toMatchObject({ actor_username: sac.adminUsername, details: { username: user.username, locked_until: new Date(until).toISOString() } });
    expect((await api(sac, 'POST', '/api/v1/users/00000000-0000-4000-8000-000000000000/unlock', { token: admin })).status).toBe(404);
  }, SIGN_INS_MS);
});
