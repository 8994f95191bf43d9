import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../shared/src/index.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('problem assignee, reopen and sorting over HTTP on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: { id: string; username: string; token: string };
  let other: { id: string; username: string };
  const streamed: StreamMessage[] = [];
  const clock = new ManualClock(NOW);
  const call = async (method: 'GET' | 'POST', path: string, token: string, body?: unknown) => api(t, method, path, { token, body });

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    admin = await adminToken(t);
    const m = await createUser(t, 'monitor');
    monitor = { id: m.user.id, username: m.user.username, token: (await login(t, m.user.username, m.password)).body.token };
    const o = await createUser(t, 'monitor');
    other = { id: o.user.id, username: o.user.username };
    t.sac.bus.subscribe((msg) => {
      if (msg.type === 'problem.assigned' || msg.type === 'problem.reopened') streamed.push(msg);
    });
    // Three problems on three hosts: severities high / warning / critical, counts 1 / 3 / 2.
    const plan = [
      { hostname: 'ALPHA', severity: 'high' as const, n: 1 },
      { hostname: 'CHARLIE', severity: 'warning' as const, n: 3 },
      { hostname: 'BRAVO', severity: 'critical' as const, n: 2 },
    ];
    for (const [h, p] of plan.entries()) {
      for (let i = 0; i < p.n; i++) {
        await ingest(t, { host: { hostname: p.hostname }, type: 'rdp.login.failed', severity: p.severity, title: `failed ${i}`, occurred_at: isoAt(NOW - (10 - h) * MIN + i * 1000) });
      }
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const problemOf = async (hostname: string) =>
    ((await call('GET', `/api/v1/problems?host=${hostname}`, admin)).body.items as { id: string }[])[0].id;

  it('lists the active users a problem can be assigned to, to monitors too', async () => {
    const res = await call('GET', '/api/v1/problem-assignees', monitor.token);
    expect(res.status).toBe(200);
    const names = res.body.items.map((u: { username: string }) => u.username);
    expect(names).toEqual(expect.arrayContaining([monitor.username, other.username, t.adminUsername]));
    expect(Object.keys(res.body.items[0]).sort()).toEqual(['display_name', 'id', 'username']);
    expect((await trpc(t, monitor.token, 'query', 'problems.assignees')).data).toEqual(res.body.items);
  });

  it('assigns to me, to someone, unassigns; filters "assigned to me"; refuses stale and unknown assignees', async () => {
    const id = await problemOf('ALPHA');
    const mine = await call('POST', `/api/v1/problems/${id}/assign`, monitor.token, { assignee_id: monitor.id, expected_assignee_id: null });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ assignee_id: monitor.id, assignee: monitor.username, assigned_at: isoAt(NOW) });

    const me = await call('GET', '/api/v1/problems?assignee=me', monitor.token);
    expect(me.body.items.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await call('GET', '/api/v1/problems?assignee=me', admin)).body.items).toEqual([]);
    expect((await call('GET', '/api/v1/problems?assignee=none', admin)).body.items).toHaveLength(2);
    expect((await call('GET', `/api/v1/problems?assignee=${monitor.id}`, admin)).body.items).toHaveLength(1);
    expect((await trpc(t, monitor.token, 'query', 'problems.list', { assignee: 'me' })).data.items).toHaveLength(1);

    // The admin still saw it unassigned: 409 naming who holds it now, nothing changed.
    const stale = await call('POST', `/problems/${id}/assign`, admin, { assignee_id: other.id, expected_assignee_id: null });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'problem/assignee_changed', details: { assignee_id: monitor.id, assignee: monitor.username } });
    expect(stale.body.error.message).toContain(monitor.username);

    const handed = await trpc(t, admin, 'mutation', 'problems.assign', { id, assignee_id: other.id, expected_assignee_id: monitor.id });
    expect(handed.data).toMatchObject({ assignee_id: other.id, assignee: other.username });

    const unknown = await call('POST', `/api/v1/problems/${id}/assign`, admin, { assignee_id: '33333333-3333-4333-8333-333333333333' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('problem/assignee_unknown');
    expect((await call('POST', `/api/v1/problems/${id}/assign`, admin, { assignee_id: 'bob' })).status).toBe(400);

    const cleared = await call('POST', `/api/v1/problems/${id}/assign`, monitor.token, { assignee_id: null });
    expect(cleared.body).toMatchObject({ assignee_id: null, assignee: null, assigned_at: null });

    expect(streamed.filter((m) => m.type === 'problem.assigned').map((m) => (m.data as { assignee: string | null }).assignee)).toEqual([
      monitor.username,
      other.username,
      null,
    ]);
    const audit = await call('GET', '/api/v1/audit?action=problem.assigned&limit=10', admin);
    expect(audit.body.entries).toHaveLength(3);
    expect(audit.body.entries.map((r: { target: string }) => r.target)).toEqual(Array(3).fill(`problem:${id}`));
  });

  it('reopens a resolved problem only, with 409 naming the current status otherwise; audited and streamed', async () => {
    const id = await problemOf('BRAVO');
    const early = await call('POST', `/api/v1/problems/${id}/reopen`, monitor.token, {});
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'problem/invalid_transition', details: { status: 'open', action: 'reopen' } });

    await call('POST', `/api/v1/problems/${id}/acknowledge`, admin, {});
    await call('POST', `/api/v1/problems/${id}/resolve`, admin, {});
    clock.advance(MIN);
    const reopened = await call('POST', `/problems/${id}/reopen`, monitor.token, { comment: 'seen again' });
    expect(reopened.status).toBe(200);
    expect(reopened.body).toMatchObject({ status: 'open', acknowledged_by: null, resolved_by: null, resolved_at: null });
    expect(reopened.body.comments.at(-1)).toMatchObject({ action: 'reopen', by: monitor.username, text: 'seen again' });
    const twice = await trpc(t, admin, 'mutation', 'problems.reopen', { id });
    expect(twice.error?.data?.code).toBe('CONFLICT');

    expect(streamed.filter((m) => m.type === 'problem.reopened').map((m) => (m.data as { id: string }).id)).toEqual([id]);
    const audit = await call('GET', '/api/v1/audit?action=problem.reopened&limit=10', admin);
    expect(audit.body.entries).toHaveLength(1);
    expect(audit.body.entries[0]).toMatchObject({ target: `problem:${id}`, actor_username: monitor.username });
  });

  it('sorts the list server-side by a whitelisted column in both directions, paging by cursor', async () => {
    const hostnames = async (q: string) => ((await call('GET', `/api/v1/problems?${q}`, admin)).body.items as { hostname: string }[]).map((p) => p.hostname);
    expect(await hostnames('sort=hostname&dir=asc')).toEqual(['ALPHA', 'BRAVO', 'CHARLIE']);
    expect(await hostnames('sort=hostname&dir=desc')).toEqual(['CHARLIE', 'BRAVO', 'ALPHA']);
    expect(await hostnames('sort=severity')).toEqual(['BRAVO', 'ALPHA', 'CHARLIE']);
    expect(await hostnames('sort=count&dir=asc')).toEqual(['ALPHA', 'BRAVO', 'CHARLIE']);
    const first = await call('GET', '/api/v1/problems?sort=hostname&dir=asc&limit=2', admin);
    expect(first.body.items.map((p: { hostname: string }) => p.hostname)).toEqual(['ALPHA', 'BRAVO']);
    const rest = await call('GET', `/api/v1/problems?sort=hostname&dir=asc&limit=2&cursor=${first.body.next_cursor}`, admin);
    expect(rest.body.items.map((p: { hostname: string }) => p.hostname)).toEqual(['CHARLIE']);
    // A cursor made for one order is refused under another instead of skipping rows.
    const mixed = await call('GET', `/api/v1/problems?sort=count&limit=2&cursor=${first.body.next_cursor}`, admin);
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.details.parameter).toBe('cursor');
    const bad = await call('GET', '/api/v1/problems?sort=title', admin);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.parameter).toBe('sort');
  });
});
