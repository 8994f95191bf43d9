import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, hostIdOf, login, userToken } from '../helpers/auth.js';
import { ManualClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { FAST_DELIVERY } from '../peers/notify-env.js';
import { startPushPeer, type PushPeer } from '../peers/push.peer.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('two-person approval on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let anna: string;
  let bob: string;
  let host: string;
  const clock = new ManualClock(NOW);

  const logoff = (token: string, session: number) => api(t, 'POST', `/api/v1/hosts/${host}/sessions/${session}/logoff`, { token });
  const logoffsQueued = async () =>
    (await api(t, 'GET', `/api/v1/commands?host_id=${host}`, { token: admin })).body.items.filter((c: { type: string }) => c.type === 'logoff');
  const request = (token: string, body: unknown) => api(t, 'POST', '/api/v1/approvals', { token, body });
  /** A Windows host with an agent (no WinRM administrator here: a logoff is queued to the agent). */
  const windowsHost = async (hostname: string) =>
    hostIdOf(
      t,
      await ingestEvent(t, {
        type: 'rdp.login.success',
        occurred_at: isoAt(NOW),
        host: { hostname, os_family: 'windows' },
        source: { product: 'rdp-login-monitor', agent_instance_id: `agent-${hostname.toLowerCase()}` },
        details: { user: 'CORP\\anna', session_id: 6 },
      }),
    );

  beforeAll(async () => {
    // The push peers listen on loopback; push.example stands for a public push service.
    t = await startTestSac(kind, { SAC_APPROVAL_EXPIRY_CHECK_SECONDS: '0.1', SAC_PUSH_ALLOW_LOOPBACK: 'true', SAC_PUSH_HOSTS: 'push.example', ...FAST_DELIVERY }, { clock });
    admin = await adminToken(t);
    anna = await userToken(t, 'monitor');
    bob = await userToken(t, 'monitor');
    // A Windows host with an agent; no WinRM administrator here, so a logoff is queued to the agent.
    const eventId = await ingestEvent(t, {
      type: 'rdp.login.success',
      occurred_at: isoAt(NOW),
      host: { hostname: 'RDS-APPROVE', os_family: 'windows' },
      source: { product: 'rdp-login-monitor', agent_instance_id: 'agent-rds-approve' },
      details: { user: 'CORP\\anna', session_id: 2 },
    });
    host = await hostIdOf(t, eventId);
    const policy = await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff', 'host_delete'], expiry_minutes: 30 } });
    expect(policy.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('holds a logoff back until a second person approves; the requester never can, and the action runs as the approver', async () => {
    const held = await logoff(anna, 2);
    expect(held.status).toBe(409);
    expect(held.body.error).toMatchObject({ code: 'approval/required', details: { action: 'session_logoff', request: { kind: 'host_logoff', host_id: host, session_id: 2 } } });
    expect(await logoffsQueued()).toEqual([]);

    expect((await request(anna, { request: held.body.error.details.request, reason: ' \t' })).status).toBe(400);
    const filed = await request(anna, { request: held.body.error.details.request, reason: 'stale session of a leaver' });
    expect(filed.status).toBe(201);
    expect(filed.body).toMatchObject({ state: 'pending', summary: 'Log off session 2 on RDS-APPROVE', hostnames: ['RDS-APPROVE'], reason: 'stale session of a leaver' });
    expect(Date.parse(filed.body.expires_at) - Date.parse(filed.body.requested_at)).toBe(30 * MIN);
    const id = filed.body.id as string;

    expect((await api(t, 'GET', '/api/v1/approvals?state=pending', { token: anna })).body.pending_for_me).toBe(0);
    expect((await api(t, 'GET', '/api/v1/approvals?state=pending', { token: bob })).body.pending_for_me).toBe(1);

    const own = await api(t, 'POST', `/api/v1/approvals/${id}/approve`, { token: anna, body: {} });
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('approval/own_request');
    expect(await logoffsQueued()).toEqual([]);

    const approved = await trpc(t, bob, 'mutation', 'approvals.approve', { id, note: 'checked with HR' });
    expect(approved.data).toMatchObject({ state: 'approved', note: 'checked with HR', result: { ok: true, detail: expect.stringContaining('queued to the host') } });
    expect(await logoffsQueued()).toMatchObject([{ params: { session_id: 2 } }]);
    expect((await api(t, 'POST', `/api/v1/approvals/${id}/approve`, { token: admin, body: {} })).body.error.code).toBe('approval/not_pending');

    const audit = (await api(t, 'GET', '/api/v1/audit?limit=50', { token: admin })).body.entries as { action: string; actor_username: string; details: Record<string, unknown> }[];
    const bobName = (await api(t, 'GET', '/api/v1/auth/me', { token: bob })).body.user.username;
    const annaName = (await api(t, 'GET', '/api/v1/auth/me', { token: anna })).body.user.username;
    expect(audit.find((e) => e.action === 'actions.logoff')).toMatchObject({ actor_username: bobName, details: { approval_id: id, requested_by: annaName } });
    expect(audit.find((e) => e.action === 'approval.approved')).toMatchObject({ actor_username: bobName, details: { requested_by: annaName } });
    expect(audit.find((e) => e.action === 'approval.requested')).toMatchObject({ actor_username: annaName });
  });

  it('expires a request nobody decided, and runs nothing', async () => {
    const held = await logoff(anna, 3);
    const filed = await request(anna, { request: held.body.error.details.request, reason: 'night shift' });
    clock.advance(31 * MIN);
    await waitFor('the request expired', async () => (await api(t, 'GET', `/api/v1/approvals/${filed.body.id}`, { token: bob })).body.state === 'expired');
    const late = await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: bob, body: {} });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('approval/not_pending');
    expect((await logoffsQueued()).map((c: { params: { session_id: number } }) => c.params.session_id)).toEqual([2]);
  });

  it('is denied by another person or withdrawn by the requester; both run nothing', async () => {
    const denied = await request(anna, { request: { kind: 'host_logoff', host_id: host, session_id: 4 }, reason: 'test' });
    const answer = await api(t, 'POST', `/api/v1/approvals/${denied.body.id}/deny`, { token: bob, body: { note: 'not a leaver' } });
    expect(answer.body).toMatchObject({ state: 'denied', note: 'not a leaver', result: null });
    const withdrawn = await request(anna, { request: { kind: 'host_logoff', host_id: host, session_id: 5 }, reason: 'test' });
    expect((await api(t, 'POST', `/api/v1/approvals/${withdrawn.body.id}/cancel`, { token: bob })).status).toBe(403);
    expect((await api(t, 'POST', `/api/v1/approvals/${withdrawn.body.id}/cancel`, { token: anna })).body.state).toBe('cancelled');
    expect((await logoffsQueued()).map((c: { params: { session_id: number } }) => c.params.session_id)).toEqual([2]);
  });

  it('asks an admin approver for an admin action: a monitor may neither request nor approve it', async () => {
    const held = await api(t, 'DELETE', `/api/v1/hosts/${host}`, { token: admin });
    expect(held.body.error).toMatchObject({ code: 'approval/required', details: { request: { kind: 'host_delete', host_id: host } } });
    expect((await request(anna, { request: held.body.error.details.request, reason: 'decommissioned' })).status).toBe(403);
    const filed = await request(admin, { request: held.body.error.details.request, reason: 'decommissioned' });
    expect(filed.status).toBe(201);
    expect((await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: bob, body: {} })).status).toBe(403);
    const second = await createUser(t, 'admin');
    const secondToken = (await login(t, second.user.username, second.password)).body.token as string;
    const approved = await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: secondToken, body: {} });
    expect(approved.body).toMatchObject({ state: 'approved', result: { ok: true, detail: 'host deleted' } });
    expect((await api(t, 'GET', `/api/v1/hosts/${host}`, { token: admin })).status).toBe(404);
  });

  it('holds a fleet ban back for a second admin, who bans the address as their decision', async () => {
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['fleet_ban'] } });
    const held = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: '203.0.113.77', reason: 'scanner' } });
    expect(held.status).toBe(409);
    expect(held.body.error).toMatchObject({ code: 'approval/required', details: { action: 'fleet_ban', request: { kind: 'ban_create', address: '203.0.113.77' } } });
    expect((await api(t, 'GET', '/api/v1/bans', { token: admin })).body.bans).toEqual([]);
    const bad = await request(admin, { request: { kind: 'ban_create', address: '203.0.113.77', event_id: 'x' }, reason: 'two sources' });
    expect(bad.status).toBe(400);
    const filed = await request(admin, { request: held.body.error.details.request, reason: 'scanner hitting every host' });
    expect(filed.body).toMatchObject({ state: 'pending', summary: expect.stringContaining('Ban 203.0.113.77 on all Linux hosts') });
    const second = await createUser(t, 'admin');
    const secondToken = (await login(t, second.user.username, second.password)).body.token as string;
    const approved = await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: secondToken, body: {} });
    expect(approved.body).toMatchObject({ state: 'approved', result: { ok: true, detail: expect.stringContaining('203.0.113.77 banned') } });
    expect((await api(t, 'GET', '/api/v1/bans', { token: admin })).body.bans).toMatchObject([{ address: '203.0.113.77', status: 'active', applied_by: second.user.username }]);
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff', 'host_delete'] } });
  });

  it('holds an action back per host group: a logoff in the group waits for approval, the same outside it runs at once', async () => {
    const [finance, lab] = [await windowsHost('RDS-FINANCE'), await windowsHost('RDS-LAB')];
    const group = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Finance desks', host_ids: [finance] } });
    expect(group.status).toBe(201);
    const unknown = await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { by_group: [{ group: 'no-such-group', actions: ['session_logoff'] }] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('by_group.0.group is not a host group');
    const policy = await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: [], by_group: [{ group: group.body.id, actions: ['session_logoff'] }] } });
    expect(policy.status).toBe(200);
    const queuedOn = async (hostId: string) =>
      (await api(t, 'GET', `/api/v1/commands?host_id=${hostId}`, { token: admin })).body.items.filter((c: { type: string }) => c.type === 'logoff').length;

    const held = await api(t, 'POST', `/api/v1/hosts/${finance}/sessions/6/logoff`, { token: anna });
    expect(held.status).toBe(409);
    expect(held.body.error).toMatchObject({ code: 'approval/required', details: { action: 'session_logoff', request: { kind: 'host_logoff', host_id: finance } } });
    expect(await queuedOn(finance)).toBe(0);
    const ran = await api(t, 'POST', `/api/v1/hosts/${lab}/sessions/6/logoff`, { token: anna });
    expect(ran.status, JSON.stringify(ran.body)).toBeLessThan(300);
    expect(await queuedOn(lab)).toBe(1);
    expect((await request(anna, { request: { kind: 'host_logoff', host_id: lab, session_id: 6 }, reason: 'outside the group' })).body.error.code).toBe('approval/not_required');
    const filed = await request(anna, { request: held.body.error.details.request, reason: 'finance desk left unlocked' });
    expect(filed.status).toBe(201);
    expect((await api(t, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: bob, body: {} })).body).toMatchObject({ state: 'approved', result: { ok: true } });
    expect(await queuedOn(finance)).toBe(1);

    // The policy names the group: deleting it would drop the rule for its hosts, so it is refused.
    const gone = await api(t, 'DELETE', `/api/v1/groups/${group.body.id}`, { token: admin });
    expect(gone.status).toBe(409);
    expect(gone.body.error.code).toBe('group/in_use');
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff', 'host_delete'], by_group: [] } });
    expect((await api(t, 'DELETE', `/api/v1/groups/${group.body.id}`, { token: admin })).status).toBe(204);
  });

  it('pushes a new request with Approve and Deny to the people who may decide it, never to the requester', async () => {
    const peers: PushPeer[] = [];
    try {
      const [annaPush, bobPush, carolPush] = [await startPushPeer(), await startPushPeer(), await startPushPeer()];
      peers.push(annaPush, bobPush, carolPush);
      const subscribe = async (token: string, peer: PushPeer) => {
        const sub = await api(t, 'POST', '/api/v1/push/subscriptions', { token, body: { ...peer.subscription, label: 'phone' } });
        expect(sub.status).toBe(201);
        return sub.body.id as string;
      };
      await subscribe(anna, annaPush);
      const bobSub = await subscribe(bob, bobPush);
      // Carol may log sessions off, but only on another group's hosts: she could not open this request.
      const carol = await createUser(t, 'monitor');
      const lab = await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name: 'Lab only', host_ids: [await windowsHost('RDS-LAB2')] } });
      expect((await api(t, 'PUT', `/api/v1/users/${carol.user.id}/host-groups`, { token: admin, body: { group_ids: [lab.body.id] } })).status).toBe(200);
      await subscribe((await login(t, carol.user.username, carol.password)).body.token as string, carolPush);
      const pushed = await windowsHost('RDS-PUSH');
      const filed = await request(anna, { request: { kind: 'host_logoff', host_id: pushed, session_id: 8 }, reason: 'left logged on over the weekend' });
      expect(filed.status).toBe(201);
      const id = filed.body.id as string;

      await waitFor('the approver got the push', () => bobPush.deliveries.some((d) => d.payload.data.ref === id));
      const payload = bobPush.deliveries.find((d) => d.payload.data.ref === id)!.payload;
      expect(payload).toMatchObject({
        title: '🔐 Approval needed',
        tag: `approval:${id}`,
        data: { kind: 'approval', ref: id, url: `/approvals/${id}` },
        actions: [
          { action: 'approve', title: 'Approve' },
          { action: 'deny', title: 'Deny' },
        ],
      });
      expect(payload.body).toContain('Log off session 8 on RDS-PUSH');
      expect(payload.body).toContain('left logged on over the weekend');
      // The phone decides with its user's own session: no secret rides in the notification.
      for (const secret of [anna, bob, admin]) expect(JSON.stringify(payload)).not.toContain(secret);

      // One delivery, to the approver's subscription; none was ever made for the requester's or Carol's.
      const rows = ((await trpc(t, admin, 'query', 'notifications.deliveries', { topic: 'approval.requested' })).data as { ref: string; target: string; channel: string }[]).filter(
        (r) => r.ref === id,
      );
      expect(rows).toEqual([expect.objectContaining({ channel: 'push', target: bobSub })]);
      // The requester's phone works (it got the host's sign-in alert) and got no approval request.
      await waitFor('the requester got the sign-in alert', () => annaPush.deliveries.some((d) => d.payload.data.kind === 'event'));
      expect(annaPush.deliveries.filter((d) => d.payload.data.kind === 'approval')).toEqual([]);
    } finally {
      await Promise.all(peers.map((p) => p.close()));
    }
  });

  it('refuses a request for an action the policy does not hold back', async () => {
    // A host the policy (session_logoff, host_delete; no group entry) leaves agent updates free on.
    const res = await request(admin, { request: { kind: 'host_update', host_id: await windowsHost('UPD-01') }, reason: 'monthly' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('approval/not_required');
  });
});
