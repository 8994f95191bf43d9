import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainFact } from '../../daemon/src/facts.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

const MINUTE = 60_000;

describe.each(STORE_KINDS)('sign-in throttling and the audit log on %s', (kind) => {
  let sac: TestSac;
  const clock = new TestClock();
  const facts: DomainFact[] = [];
  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_LOGIN_ADDRESS_MAX_FAILURES: '6' }, { clock });
    sac.sac.facts.subscribe((batch) => void facts.push(...batch));
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('locks a username after 3 failures in the window: 429 with Retry-After even for the right password, one alert, then unlocks', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    for (let i = 0; i < 3; i++) expect((await login(sac, user.username, 'Wrong-password-123')).status).toBe(401);
    const locked = await login(sac, user.username.toUpperCase(), password);
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('auth/too_many_attempts');
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect((await login(sac, user.username, 'Wrong-password-123')).status).toBe(429);

    const alerts = facts.filter((f) => f.type === 'auth.login_locked');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ username: user.username, attempts: 3 });

    clock.advance(10 * MINUTE);
    expect(Number((await login(sac, user.username, password)).headers.get('retry-after'))).toBeLessThanOrEqual(5 * 60);
    clock.advance(5 * MINUTE + 1000);
    expect((await login(sac, user.username, password)).status).toBe(200);
    expect(facts.filter((f) => f.type === 'auth.login_locked')).toHaveLength(1);

    const audit = await api(sac, 'GET', `/api/v1/audit?actor=${user.username}&limit=20`, { token: await adminToken(sac) });
    expect(audit.status).toBe(200);
    const actions = audit.body.entries.map((e: { action: string; outcome: string }) => `${e.action}:${e.outcome}`);
    expect(actions[0]).toBe('auth.login_succeeded:ok');
    expect(actions).toContain('auth.login_locked:denied');
    expect(actions.filter((a: string) => a === 'auth.login_failed:failed')).toHaveLength(6);
    expect(audit.body.entries[0].ip).toMatch(/127\.0\.0\.1/);
  });

  it('does not lock for failures spread wider than the window', async () => {
    clock.advance(16 * MINUTE);
    const { user, password } = await createUser(sac, 'monitor');
    for (let i = 0; i < 2; i++) await login(sac, user.username, 'Wrong-password-123');
    clock.advance(16 * MINUTE);
    expect((await login(sac, user.username, 'Wrong-password-123')).status).toBe(401);
    expect((await login(sac, user.username, password)).status).toBe(200);
  });

  it('bounds failures per source address across usernames', async () => {
    clock.advance(16 * MINUTE);
    for (let i = 0; i < 6; i++) expect((await login(sac, `ghost-${i}`, 'Wrong-password-123')).status).toBe(401);
    const blocked = await login(sac, sac.adminUsername, sac.adminPassword);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.advance(16 * MINUTE);
    expect((await login(sac, sac.adminUsername, sac.adminPassword)).status).toBe(200);
  });

  it('filters the audit log by action prefix, outcome and time, newest first; monitors get 403', async () => {
    const token = await adminToken(sac, { fresh: true });
    const failed = await api(sac, 'GET', '/api/v1/audit?action=auth.&outcome=failed&limit=5', { token });
    expect(failed.body.entries).toHaveLength(5);
    for (const e of failed.body.entries) expect(e).toMatchObject({ action: 'auth.login_failed', outcome: 'failed' });
    const times = failed.body.entries.map((e: { at: string }) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const older = await api(sac, 'GET', `/api/v1/audit?before=${encodeURIComponent(failed.body.entries[4].at)}&action=auth.login_failed`, { token });
    expect(older.body.entries.every((e: { at: string }) => Date.parse(e.at) < times[4])).toBe(true);
    // Paging on from the last entry shown (its time and id) lists each entry once, in order.
    const all = (await api(sac, 'GET', '/api/v1/audit?action=auth.&outcome=failed&limit=500', { token })).body.entries as { id: string; at: string }[];
    const last = failed.body.entries[4] as { id: string; at: string };
    const next = await api(sac, 'GET', `/api/v1/audit?action=auth.&outcome=failed&limit=500&before=${encodeURIComponent(last.at)}&before_id=${last.id}`, { token });
    expect(next.body.entries.map((e: { id: string }) => e.id)).toEqual(all.slice(5).map((e) => e.id));
    const orphan = await api(sac, 'GET', `/api/v1/audit?before_id=${last.id}`, { token });
    expect(orphan.status).toBe(400);
    expect(JSON.stringify(orphan.body)).toContain('before_id');
    const users = await api(sac, 'GET', '/api/v1/audit?action=user.created', { token });
    expect(users.body.entries.length).toBeGreaterThanOrEqual(3);
    expect((await api(sac, 'GET', '/api/v1/audit?limit=0', { token })).status).toBe(400);
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = (await login(sac, user.username, password)).body.token;
    expect((await api(sac, 'GET', '/api/v1/audit', { token: monitor })).status).toBe(403);
  });
});
