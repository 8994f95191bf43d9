import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { loadFixtures } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** An agent event of the shared fixtures (as the real agents send it) on another host, at another time, with other details. */
function agentEvent(type: string, hostname: string, atMs: number, details: Record<string, unknown> = {}) {
  const fixture = loadFixtures().find((e) => e.type === type);
  if (!fixture) throw new Error(`no fixture of type ${type}`);
  const { event_id: _fresh, ...rest } = fixture;
  return { ...rest, host: { ...fixture.host, hostname }, occurred_at: isoAt(atMs), details: { ...fixture.details, ...details } };
}

describe.each(STORE_KINDS)('per-type problem choice over HTTP on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SESSION_TTL_MINUTES: '43200' }, { clock });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Ingests agent events on one host: type, minutes before NOW, and details changed from the fixture's. */
  const ingestOn = async (hostname: string, events: [string, number, Record<string, unknown>?][]) => {
    for (const [type, minutesAgo, details] of events) await ingest(t, agentEvent(type, hostname, NOW - minutesAgo * MIN, details));
  };
  const problemsOf = async (hostname: string) =>
    ((await api(t, 'GET', `/api/v1/problems?host=${hostname}`, { token: admin })).body.items as any[]).map((p) => [p.type, p.rule, p.severity, p.count]).sort();
  const setCorrelation = async (values: Record<string, unknown>) => api(t, 'PATCH', '/api/v1/settings/correlation', { token: admin, body: values });
  const openedByType = async (token = monitor) => {
    const res = await api(t, 'GET', '/api/v1/problem-types/opened', { token });
    expect(res.status).toBe(200);
    return res.body as { since: string; items: { type: string; rule: string; opened: number }[] };
  };

  it('by default counts gateway failures and SSH bans into the host’s activity problem, and opens the rest', async () => {
    const settings = await api(t, 'GET', '/api/v1/settings/correlation', { token: admin });
    expect(settings.body.values).toMatchObject({ type_problems: { 'rdg.connection.failed': 'count', 'ssh.ip.banned': 'count' }, admin_users: [] });

    await ingestOn('GW01', [
      ['rdg.connection.failed', 50],
      // Two hours apart (beyond the 60 min window): still the host's one activity problem.
      ['rdg.connection.failed', 170, { user: 'CORP\\anna' }],
      ['rdp.login.failed', 5],
    ]);
    await ingestOn('BAN01', [
      ['ssh.ip.banned', 10],
      ['privilege.sudo.command', 5],
    ]);

    expect(await problemsOf('GW01')).toEqual([
      ['host.activity', 'host_activity', 'info', 2],
      ['rdp.login.failed', 'severity', 'warning', 1],
    ]);
    expect(await problemsOf('BAN01')).toEqual([
      ['host.activity', 'host_activity', 'info', 1],
      ['privilege.sudo.command', 'severity', 'warning', 1],
    ]);
  });

  it('opens no problem for routine administration by a known admin user or by the accounts SAC signs in with', async () => {
    expect((await setCorrelation({ admin_users: ['Deploy'] })).status).toBe(200);
    expect((await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: { username: 'CORP\\svc-sac', password: 'Adm1n-pass' } })).status).toBe(200);

    await ingestOn('ADM01', [
      ['privilege.sudo.command', 5], // by deploy
      ['winrm.session.started', 4, { user: 'svc-sac@corp' }],
      ['smb.admin_share.access', 3, { user: 'corp\\DEPLOY' }],
      // Someone else's sudo, and an admin's failed login (not administration), still open.
      ['privilege.sudo.command', 2, { user: 'mallory' }],
      ['rdp.login.failed', 1, { user: 'deploy' }],
    ]);

    expect(await problemsOf('ADM01')).toEqual([
      ['privilege.sudo.command', 'severity', 'warning', 1],
      ['rdp.login.failed', 'severity', 'warning', 1],
    ]);
  });

  it('follows the most specific pattern: never, count, or open', async () => {
    expect((await setCorrelation({ type_problems: { rdp: 'count', 'rdp.login.failed': 'never', 'rdp.shadow.*': 'open' } })).status).toBe(200);

    await ingestOn('PAT01', [
      ['rdp.login.failed', 5],
      ['rdp.bruteforce.burst', 4],
      ['rdp.shadow.control.started', 3],
      // No longer listed: opens again.
      ['rdg.connection.failed', 2],
    ]);

    expect(await problemsOf('PAT01')).toEqual([
      ['host.activity', 'host_activity', 'info', 1],
      ['rdg.connection.failed', 'severity', 'warning', 1],
      ['rdp.shadow.control.started', 'severity', 'warning', 1],
    ]);
  });

  it('refuses a bad pattern or choice with 400 and says which', async () => {
    const badPattern = await setCorrelation({ type_problems: { 'RDP Login': 'never' } });
    expect(badPattern.status).toBe(400);
    expect(badPattern.body.error.details).toEqual([{ path: 'type_problems.RDP Login', message: '"RDP Login" must be an event type or dotted prefix such as rdp.login or ssh.*' }]);
    const badChoice = await setCorrelation({ type_problems: { rdp: 'sometimes' } });
    expect(badChoice.status).toBe(400);
    expect(badChoice.body.error.details).toEqual([expect.objectContaining({ path: 'type_problems.rdp' })]);
    const blankUser = await setCorrelation({ admin_users: ['  '] });
    expect(blankUser.status).toBe(400);
    const kept = await api(t, 'GET', '/api/v1/settings/correlation', { token: admin });
    expect(kept.body.values.type_problems).toEqual({ rdp: 'count', 'rdp.login.failed': 'never', 'rdp.shadow.*': 'open' });
  });

  it('counts the problems each type opened in the last week', async () => {
    const week = await openedByType();
    expect(week.since).toBe(isoAt(NOW - 7 * DAY));
    const opened = Object.fromEntries(week.items.map((i) => [`${i.type} ${i.rule}`, i.opened]));
    expect(opened).toEqual({
      'host.activity host_activity': 3,
      'privilege.sudo.command severity': 2,
      'rdp.login.failed severity': 2,
      'rdg.connection.failed severity': 1,
      'rdp.shadow.control.started severity': 1,
    });
    expect(week.items[0]).toEqual({ type: 'host.activity', rule: 'host_activity', opened: 3 });

    // Eight days on, those are older than a week; a new one is counted.
    clock.advance(8 * DAY);
    await ingest(t, agentEvent('rdp.shadow.control.started', 'PAT01', clock.now() - MIN));
    // The sessions of a week ago have expired meanwhile.
    expect((await openedByType(await adminToken(t, { fresh: true }))).items).toEqual([{ type: 'rdp.shadow.control.started', rule: 'severity', opened: 1 }]);
  });
});
