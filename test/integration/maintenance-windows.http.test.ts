import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { critical, deliveries, MIN, problemOf, useAlertingSac } from '../helpers/alerting.js';
import { api, createUser, login } from '../helpers/auth.js';
import { waitFor, type TestClock } from '../helpers/clock.js';
import { ingestEvent, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { TelegramPeer } from '../peers/telegram.peer.js';

describe.each(STORE_KINDS)('maintenance windows on %s', (kind) => {
  let t: TestSac;
  let tg: TelegramPeer;
  let token: string;
  let clock: TestClock;
  useAlertingSac(kind, (a) => ({ t, tg, token, clock } = a));

  it('a critical event inside a maintenance window is stored but not sent, and one after the window is sent', async () => {
    const host = `mw-${randomUUID().slice(0, 6)}`;
    const created = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { hosts: [host.toUpperCase()], starts_at: new Date(clock.now() - MIN).toISOString(), duration_minutes: 120, reason: 'Patch night' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ hosts: [host], active: true, reason: 'Patch night' });
    const active = await api(t, 'GET', `/api/v1/maintenance-windows/active?host=${host.toUpperCase()}`, { token });
    expect(active.body.windows.map((w: { id: string }) => w.id)).toEqual([created.body.id]);

    const inside = await critical(t, host);
    expect((await api(t, 'GET', `/api/v1/events/${inside.id}`, { token })).status).toBe(200);
    const held = await waitFor('suppressed delivery', async () => {
      const rows = await deliveries(t, token, inside.id);
      return rows.length > 0 ? rows : null;
    });
    expect(held.map((r) => r.status)).toEqual(['suppressed']);
    expect(held[0]!.last_error).toContain(created.body.id);
    // The problem the event opened is held back too.
    const problem = await problemOf(t, token, host);
    await waitFor('suppressed problem notice', async () => (await deliveries(t, token, problem.id)).some((r) => r.status === 'suppressed'));

    const ended = await api(t, 'POST', `/api/v1/maintenance-windows/${created.body.id}/end`, { token });
    expect(ended.status).toBe(200);
    expect(ended.body.active).toBe(false);
    expect((await api(t, 'POST', `/api/v1/maintenance-windows/${created.body.id}/end`, { token })).status).toBe(409);

    const after = await critical(t, host);
    await waitFor('event after the window sent', () => tg.calls.some((c) => c.text.includes(after.title)));
    // The end of the window sends nothing retroactively.
    expect(tg.calls.some((c) => c.text.includes(inside.title))).toBe(false);
    expect((await deliveries(t, token, inside.id)).map((r) => r.status)).toEqual(['suppressed']);

    const audit = await api(t, 'GET', '/api/v1/audit?action=maintenance.', { token });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['maintenance.created', 'maintenance.ended']));
  });

  it('refuses a monitor managing windows unless the setting allows it, and bad windows', async () => {
    const monitor = await createUser(t, 'monitor');
    const mtoken = (await login(t, monitor.user.username, monitor.password)).body.token as string;
    const body = { starts_at: new Date(clock.now()).toISOString(), duration_minutes: 5, reason: 'x' };
    expect((await api(t, 'POST', '/api/v1/maintenance-windows', { token: mtoken, body })).status).toBe(403);
    expect((await api(t, 'GET', '/api/v1/maintenance-windows', { token: mtoken })).status).toBe(200);
    await api(t, 'PATCH', '/api/v1/settings/maintenance', { token, body: { managers: 'operators' } });
    const byMonitor = await api(t, 'POST', '/api/v1/maintenance-windows', { token: mtoken, body: { ...body, hosts: ['nowhere-host'] } });
    expect(byMonitor.status).toBe(201);
    expect(byMonitor.body.created_by).toBe(monitor.user.username);
    const edited = await api(t, 'PUT', `/api/v1/maintenance-windows/${byMonitor.body.id}`, { token: mtoken, body: { ...body, hosts: ['other-host'], reason: 'moved' } });
    expect(edited.body).toMatchObject({ hosts: ['other-host'], reason: 'moved' });
    await api(t, 'PATCH', '/api/v1/settings/maintenance', { token, body: { managers: 'admin' } });
    const oneOffWithoutEnd = await api(t, 'POST', '/api/v1/maintenance-windows', { token, body: { starts_at: body.starts_at, reason: 'x' } });
    expect(oneOffWithoutEnd.status).toBe(400);
    expect(oneOffWithoutEnd.body.error.code).toBe('maintenance/invalid');
    const badZone = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { starts_at: body.starts_at, reason: 'x', recurrence: { weekdays: [1], start: '02:00', duration_minutes: 60, timezone: 'Mars/Olympus' } },
    });
    expect(badZone.status).toBe(400);
    expect((await api(t, 'PUT', `/api/v1/maintenance-windows/${byMonitor.body.id}`, { token: mtoken, body })).status).toBe(403);
    expect((await api(t, 'POST', `/api/v1/maintenance-windows/${byMonitor.body.id}/end`, { token })).status).toBe(200);
    expect((await api(t, 'GET', `/api/v1/maintenance-windows/${randomUUID()}`, { token })).status).toBe(404);
  }, 90_000);

  it('opens no host_silence for a host inside a maintenance window', async () => {
    const suffix = randomUUID().slice(0, 6);
    const [quiet, loud] = [`silq-${suffix}`, `sill-${suffix}`];
    const hb = (hostname: string) =>
      ingestEvent(t, { host: { hostname }, type: 'agent.heartbeat', category: 'agent', severity: 'info', occurred_at: new Date(clock.now()).toISOString() });
    await hb(quiet);
    await hb(loud);
    const w = await api(t, 'POST', '/api/v1/maintenance-windows', {
      token,
      body: { hosts: [quiet], rules: ['host_silence'], starts_at: new Date(clock.now()).toISOString(), duration_minutes: 600, reason: 'Rack move' },
    });
    expect(w.status).toBe(201);
    const silence = async (hostname: string) => (await api(t, 'GET', `/api/v1/problems?host=${hostname}&rule=host_silence`, { token })).body.items;
    clock.advance(301 * MIN);
    await t.sac.jobs.tick({ name: 'host_silence', intervalMs: 3_600_000, run: (fence) => t.sac.silence.scan(fence) });
    expect(await silence(loud)).toHaveLength(1);
    expect(await silence(quiet)).toHaveLength(0);
  });

  it('a window naming a host group silences its members as they are when the event comes: by rule and named alike', async () => {
    const suffix = randomUUID().slice(0, 6);
    const [byRule, named, outside] = [`mg-${suffix}-1`, `mx-${suffix}`, `mo-${suffix}`];
    // A host known before the group (named in it), and one the group's rule will match once it reports.
    const first = await critical(t, named);
    const namedId = (await api(t, 'GET', `/api/v1/events/${first.id}`, { token })).body.host_id as string;
    const group = await api(t, 'POST', '/api/v1/groups', { token, body: { name: `Patch ${suffix}`, host_ids: [namedId], rules: { host_patterns: [`mg-${suffix}-*`] } } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const body = { group_ids: [group.body.id], starts_at: new Date(clock.now() - MIN).toISOString(), duration_minutes: 120, reason: 'Group patch night' };
    const unknown = await api(t, 'POST', '/api/v1/maintenance-windows', { token, body: { ...body, group_ids: ['no-such-group'] } });
    expect([unknown.status, unknown.body.error.code, unknown.body.error.details.parameter]).toEqual([400, 'request/invalid_parameter', 'group_ids']);
    const created = await api(t, 'POST', '/api/v1/maintenance-windows', { token, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ hosts: [], group_ids: [group.body.id], active: true });

    const inside = [await critical(t, byRule), await critical(t, named)];
    const after = await critical(t, outside);
    for (const e of inside) {
      const held = await waitFor(`suppressed delivery of ${e.title}`, async () => {
        const rows = await deliveries(t, token, e.id);
        return rows.length > 0 ? rows : null;
      });
      expect(held.map((r) => r.status)).toEqual(['suppressed']);
      expect(held[0]!.last_error).toContain(created.body.id);
    }
    // The problem the new member's event opened is held back too; a host outside the group is notified.
    const problem = await problemOf(t, token, byRule);
    await waitFor('suppressed problem notice', async () => (await deliveries(t, token, problem.id)).some((r) => r.status === 'suppressed'));
    await waitFor('event outside the group sent', () => tg.calls.some((c) => c.text.includes(after.title)));
    expect((await deliveries(t, token, after.id)).map((r) => r.status)).not.toContain('suppressed');
    const activeOn = async (host: string) => (await api(t, 'GET', `/api/v1/maintenance-windows/active?host=${host}`, { token })).body.windows.map((w: { id: string }) => w.id);
    expect(await activeOn(byRule.toUpperCase())).toContain(created.body.id);
    expect(await activeOn(outside)).not.toContain(created.body.id);
    expect((await api(t, 'POST', `/api/v1/maintenance-windows/${created.body.id}/end`, { token })).status).toBe(200);
  }, 90_000);
});
