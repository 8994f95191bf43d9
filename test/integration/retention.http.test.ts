import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { adminToken, api, login } from '../helpers/auth.js';
import { ManualClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { jobRuns, twoRefusedTicks } from '../helpers/jobs.js';
import { STORE_KINDS } from '../helpers/stores.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const DAY = 24 * 3600 * 1000;
/** Runs called here directly, outside the job runner: no lease to lose. */
const UNFENCED = { token: 1, check: async () => undefined };

it('keeps events by default and audit entries for a year', () => {
  const result = loadConfig({});
  expect(result.ok && result.config.retention).toEqual({ auditMs: 365 * DAY, eventMs: null, intervalMs: 3600_000 });
});

describe.each(STORE_KINDS)('retention job on %s', (kind) => {
  let t: TestSac;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_EVENT_RETENTION_DAYS: '30', SAC_AUDIT_RETENTION_DAYS: '90' }, { clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('prunes old events (keeping their dashboard counters), old audit entries, stale throttle rows and tickets', async () => {
    const old = await ingestEvent(t, { occurred_at: isoAt(NOW - 40 * DAY), title: 'old one' });
    const recent = await ingestEvent(t, { occurred_at: isoAt(NOW - DAY), title: 'recent one' });
    const counters = async () => (await t.sac.store.rollups.sum(NOW - 60 * DAY, NOW)).reduce((n, r) => (r.dim === 'type' ? n + r.n : n), 0);
    const countedBefore = await counters();
    expect(countedBefore).toBeGreaterThanOrEqual(2);

    const actor = { actor_id: null, actor_username: 'someone', ip: null, action: 'test.entry', target: null, outcome: 'ok' as const, details: {} };
    await t.sac.store.audit.insert({ ...actor, id: 'old-audit', at_ms: NOW - 100 * DAY });
    await t.sac.store.audit.insert({ ...actor, id: 'new-audit', at_ms: NOW - 10 * DAY });
    expect((await login(t, 'nobody-here', 'wrong-password-1')).status).toBe(401);
    expect(await t.sac.store.loginThrottle.state('nobody-here')).not.toBeNull();
    await t.sac.store.streamTickets.insert('expired-ticket', 'u1', NOW - 1, null);

    // Nothing is old enough yet for the throttle row: its failure is inside the window.
    const first = await t.sac.retention.run(UNFENCED);
    expect(first).toMatchObject({ events: 1, audit: 1, login_throttle: 0 });
    expect(await t.sac.store.events.byId(old)).toBeNull();
    expect(await t.sac.store.events.byId(recent)).not.toBeNull();
    expect((await t.sac.store.audit.list({ action: 'test.entry', limit: 10 })).map((a) => a.id)).toEqual(['new-audit']);
    expect(await t.sac.store.streamTickets.consume('expired-ticket', 0)).toBeNull();
    // The dashboard's long-range counters still count the pruned event.
    expect(await counters()).toBe(countedBefore);
    // The search index forgets it too.
    expect((await api(t, 'GET', '/api/v1/events?q=old%20one', { token: await adminTokenAfter() })).body.items).toEqual([]);

    clock.advance(DAY);
    const second = await t.sac.retention.run(UNFENCED);
    expect(second.login_throttle).toBeGreaterThanOrEqual(1);
    expect(await t.sac.store.loginThrottle.state('nobody-here')).toBeNull();
    expect(second.events).toBe(0);
  });

  it('prunes every expiring credential once it is of no use: enrollment codes, refresh tokens, sessions, Telegram link codes, bundle tokens', async () => {
    const start = clock.now();
    const signedIn = await login(t, t.adminUsername, t.adminPassword);
    const token = signedIn.body.token as string;
    const adminId = signedIn.body.user.id as string;
    const issued = await api(t, 'POST', '/api/v1/mobile/enrollment-codes', { token, body: { user_id: adminId, ttl_minutes: 60 } });
    expect(issued.status).toBe(201);
    const { device } = await t.sac.store.devices.enroll({
      id: 'retention-device',
      device_uuid: 'retention-device-uuid',
      user_id: adminId,
      name: 'Pixel',
      platform: 'android',
      app_version: '1.0',
      push_subscription_id: null,
      now_ms: start,
    });
    const refresh = (hash: string, expires_ms: number) => ({ hash, device_id: device.id, generation: 1, created_ms: start, expires_ms, used_ms: null });
    await t.sac.store.devices.insertRefreshToken(refresh('refresh-expiring', start + 3 * DAY));
    await t.sac.store.devices.insertRefreshToken(refresh('refresh-live', start + 60 * DAY));
    await t.sac.store.sessions.insert({ id: 'session-ended', user_id: adminId, created_ms: start, expires_ms: start + 3600_000, revoked_ms: null, ip: null });
    await t.sac.store.sessions.insert({ id: 'session-live', user_id: adminId, created_ms: start, expires_ms: start + 60 * DAY, revoked_ms: null, ip: null });
    await t.sac.store.telegram.putLinkCode('link-expiring', 'user-a', start + 600_000);
    await t.sac.store.telegram.putLinkCode('link-live', 'user-b', start + 60 * DAY);
    await t.sac.store.agentUpdates.insertToken({ hash: 'bundle-expiring', job_id: 'job-1', expires_ms: start + 600_000 });
    await t.sac.store.agentUpdates.insertToken({ hash: 'bundle-live', job_id: 'job-2', expires_ms: start + 60 * DAY });

    // Nothing has expired yet: the run keeps all of it.
    expect(await t.sac.retention.run(UNFENCED)).toMatchObject({ sessions: 0, mobile: 0, telegram_link_codes: 0, bundle_tokens: 0 });
    const codes = async () => (await api(t, 'GET', '/api/v1/mobile/enrollment-codes', { token: await adminTokenAfter() })).body.codes.map((c: { id: string }) => c.id);
    expect(await codes()).toContain(issued.body.id);

    // Eight days on: the code expired more than its week of history ago, the rest expired meanwhile.
    clock.advance(8 * DAY);
    const pruned = await t.sac.retention.run(UNFENCED);
    expect(pruned).toMatchObject({ mobile: 2, telegram_link_codes: 1, bundle_tokens: 1 });
    expect(pruned.sessions).toBeGreaterThanOrEqual(1);
    expect(await codes()).not.toContain(issued.body.id);
    expect((await t.sac.store.devices.useRefreshToken('refresh-expiring', clock.now())).status).toBe('unknown');
    expect((await t.sac.store.devices.useRefreshToken('refresh-live', clock.now())).status).toBe('ok');
    expect(await t.sac.store.sessions.byId('session-ended')).toBeNull();
    expect(await t.sac.store.sessions.byId('session-live')).not.toBeNull();
    expect(await t.sac.store.telegram.consumeLinkCode('link-live', clock.now())).toBe('user-b');
    expect(await t.sac.store.agentUpdates.consumeToken('bundle-live', clock.now())).not.toBeNull();
    // A second run finds nothing more.
    expect(await t.sac.retention.run(UNFENCED)).toMatchObject({ mobile: 0, telegram_link_codes: 0, bundle_tokens: 0 });
  });

  async function adminTokenAfter(): Promise<string> {
    const res = await login(t, t.adminUsername, t.adminPassword);
    return res.body.token as string;
  }

});

describe('retention job scheduling', () => {
  let t: TestSac;
  const clock = new ManualClock(NOW);
  beforeAll(async () => {
    t = await startTestSac('sqlite', { SAC_AUDIT_RETENTION_DAYS: '90', SAC_RETENTION_INTERVAL_MINUTES: '0.01' }, { clock });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs on its interval only on the daemon holding the retention lease', async () => {
    // This daemon leads once its first run has taken the lease.
    const token = await adminToken(t);
    await waitFor('the first retention run', async () => (await jobRuns({ url: t.url, token }, 'retention')) >= 1);
    expect(await t.sac.store.leases.acquire('retention', 'another-daemon', clock.now(), 60_000)).toBeNull();
    // Its lease runs out (clock time); another daemon takes over: this one must not prune now.
    clock.advance(31_000);
    expect(await t.sac.store.leases.acquire('retention', 'another-daemon', clock.now(), 60_000)).toBe(2);
    const entry = { actor_id: null, actor_username: 'x', ip: null, action: 'test.entry', target: null, outcome: 'ok' as const, details: {}, id: 'old', at_ms: NOW - 100 * DAY };
    await t.sac.store.audit.insert(entry);
    await twoRefusedTicks(t, 'retention');
    expect(await t.sac.store.audit.list({ action: 'test.entry', limit: 5 })).toHaveLength(1);
    await t.sac.store.leases.release('retention', 'another-daemon');
    await expect.poll(async () => (await t.sac.store.audit.list({ action: 'test.entry', limit: 5 })).length, { timeout: 5000 }).toBe(0);
  });
});
