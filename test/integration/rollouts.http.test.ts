import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdpUpdates } from '../helpers/agent-updates.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { agentLifecycleEvent } from '../helpers/events.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { GitReposPeer } from '../peers/git-repos.peer.js';

const MIN = 60_000;
/** The first fleet: one canary, then two waves; the second: a canary and one wave, in a group of its own. */
const FIRST = ['WS-1', 'WS-2', 'WS-3', 'WS-4', 'WS-5'] as const;
const SECOND = ['LAB-1', 'LAB-2', 'LAB-3'] as const;
type Name = (typeof FIRST)[number] | (typeof SECOND)[number];

interface RolloutBody {
  id: string;
  state: string;
  current_ring: number;
  halt_reason: string | null;
  created_by: string;
  approved_by: string | null;
  previous_version: string | null;
  counts: Record<string, number>;
  rings: { index: number; kind: string; state: string; hosts: { hostname: string; state: string; reason: string | null; job_id: string | null; version: string }[] }[];
}

/**
 * Issue #30's staged rollouts over agents that report their versions through events (the
 * specification's `agent.update.*`): the rings advance on health, the soak runs on the injected
 * clock, a failed canary halts the rollout by itself, a pin skips a host, pause, resume and abort
 * work, and a rollback returns a host to the previous release tag.
 */
describe.each(STORE_KINDS)('staged agent rollouts on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  const clock = new TestClock();
  const ids: Record<string, string> = {};
  let first = '';
  let second = '';
  let lab = '';

  const send = (name: Name, type: string, version: string) =>
    ingestEvent(sac, { ...agentLifecycleEvent({ hostname: name, os_family: 'windows', product: 'rdp-login-monitor' }, type, version), summary: `${type} on ${name}` });
  const rollout = async (id: string) => (await api(sac, 'GET', `/api/v1/rollouts/${id}`, { token })).body as RolloutBody;
  const until = (what: string, id: string, check: (r: RolloutBody) => boolean) =>
    waitFor(what, async () => {
      const r = await rollout(id);
      return check(r) ? r : null;
    }, 30_000);
  const hostIn = (r: RolloutBody, name: Name) => r.rings.flatMap((ring) => ring.hosts).find((h) => h.hostname === name)!;
  const job = async (name: Name) => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${ids[name]}`, { token })).body.jobs[0];

  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_AGENT_VERSION_CHECK_SECONDS: '0.2' }, { clock });
    token = await adminToken(sac);
    repos = await startRdpUpdates(sac, token);
    for (const name of [...FIRST, ...SECOND]) await send(name, 'agent.heartbeat', '2.1.7-SAC');
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items as { id: string; hostname: string }[]) ids[h.hostname] = h.id;
    lab = (await api(sac, 'POST', '/api/v1/groups', { token, body: { name: 'Lab', rules: { host_patterns: ['LAB-*'] } } })).body.id;
  });
  afterAll(async () => {
    await sac?.close();
    await repos?.close();
  });

  it('advances ring by ring on health and soak, and skips a pinned host', async () => {
    const started = await api(sac, 'POST', '/api/v1/rollouts', {
      token,
      body: {
        product: 'rdp-login-monitor',
        hosts: { all_outdated: true },
        canary: [ids['WS-1']],
        canary_soak_minutes: 10,
        waves: [{ percent: 50, soak_minutes: 10 }, { percent: 100, soak_minutes: 0 }],
        health: { heartbeat_minutes: 30, max_failure_percent: 0 },
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    first = started.body.id;
    // The lab hosts are outdated too: "all outdated" takes them, by host name after the canary.
    expect(started.body).toMatchObject({ state: 'running', current_ring: 0, previous_version: '2.1.7-SAC', counts: { hosts: 8, updating: 1, waiting: 7 } });
    const rings = (started.body as RolloutBody).rings.map((r) => [r.kind, r.state, r.hosts.map((h) => h.hostname)]);
    expect(rings).toEqual([
      ['canary', 'updating', ['WS-1']],
      ['wave', 'waiting', ['LAB-1', 'LAB-2', 'LAB-3', 'WS-2']],
      ['wave', 'waiting', ['WS-3', 'WS-4', 'WS-5']],
    ]);
    expect(await job('WS-1')).toMatchObject({ state: 'pending', target_version: '2.1.8-SAC' });
    expect(await job('WS-2')).toBeUndefined();

    await send('WS-1', 'agent.update.started', '2.1.7-SAC');
    await send('WS-1', 'agent.update.success', '2.1.8-SAC');
    let r = await until('the canary soaking', first, (x) => x.rings[0].state === 'soaking');
    expect([hostIn(r, 'WS-1').state, r.rings[1].state, r.current_ring]).toEqual(['updated', 'waiting', 0]);
    // Wave 1 starts only once the canary's soak has passed.
    clock.advance(11 * MIN);
    r = await until('wave 1 updating', first, (x) => x.rings[1].state === 'updating');
    expect(r.rings[0].state).toBe('passed');
    for (const name of ['LAB-1', 'LAB-2', 'LAB-3', 'WS-2'] as const) await send(name, 'agent.update.success', '2.1.8-SAC');
    await until('wave 1 soaking', first, (x) => x.rings[1].state === 'soaking');

    // WS-5 is pinned to 2.1.7 before its wave starts: the wave skips it, and a single update is refused.
    const pin = await api(sac, 'PUT', '/api/v1/agent-pins', { token, body: { product: 'rdp-login-monitor', max_version: '2.1.7-SAC', target: { host_id: ids['WS-5'] }, note: 'vendor app' } });
    expect(pin.status, JSON.stringify(pin.body)).toBe(200);
    expect(pin.body).toMatchObject({ host_id: ids['WS-5'], target_name: 'WS-5', max_version: '2.1.7-SAC' });
    const refused = await api(sac, 'POST', `/api/v1/hosts/${ids['WS-5']}/agent-update`, { token });
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([409, 'update/pinned', expect.stringContaining('pinned to rdp-login-monitor 2.1.7-SAC')]);
    clock.advance(11 * MIN);
    r = await until('wave 2 updating', first, (x) => x.rings[2].state === 'updating');
    expect(hostIn(r, 'WS-5')).toMatchObject({ state: 'skipped', reason: 'pinned', job_id: null });
    await send('WS-3', 'agent.update.success', '2.1.8-SAC');
    await send('WS-4', 'agent.update.success', '2.1.8-SAC');
    r = await until('the rollout completed', first, (x) => x.state === 'completed');
    expect(r.counts).toMatchObject({ hosts: 8, updated: 7, skipped: 1, failed: 0 });
    expect(r.rings.map((ring) => ring.state)).toEqual(['passed', 'passed', 'passed']);
    const audit = (await api(sac, 'GET', '/api/v1/audit?limit=200', { token })).body.entries as { action: string; target: string | null }[];
    expect(audit.filter((a) => a.target === `rollout:${first}`).map((a) => a.action).reverse()).toEqual(['rollout.started', 'rollout.ring_started', 'rollout.ring_started', 'rollout.completed']);
  });

  it('rolls a host back to the previous release tag, which its agent then reports', async () => {
    const back = await api(sac, 'POST', `/api/v1/rollouts/${first}/hosts/${ids['WS-4']}/rollback`, { token });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(hostIn(back.body, 'WS-4')).toMatchObject({ state: 'rolled_back', reason: 'rolled back to 2.1.7-SAC' });
    const rollback = await job('WS-4');
    expect(rollback).toMatchObject({ state: 'pending', from_version: '2.1.8-SAC', target_version: '2.1.7-SAC' });
    // The agent's poll offers the previous release's bundle, built from its (verified) tag.
    const polled = await fetch(`${sac.url}/api/v1/agent/poll?agent_instance_id=agent-WS-4`, { headers: { Authorization: `Bearer ${sac.apiKey}` } });
    expect(((await polled.json()) as { update: { job_id: string; version: string } }).update).toMatchObject({ job_id: rollback.id, version: '2.1.7-SAC' });
    // Still reporting the newer version is not the rollback done (jobs move in event order: had the
    // heartbeat finished it, `started` would not apply); reporting the previous one is.
    await send('WS-4', 'agent.heartbeat', '2.1.8-SAC');
    await send('WS-4', 'agent.update.started', '2.1.8-SAC');
    await waitFor('the rollback started', async () => (await job('WS-4')).state === 'started');
    await send('WS-4', 'agent.lifecycle', '2.1.7-SAC');
    await waitFor('the rollback done', async () => (await job('WS-4')).state === 'success');
    const host = (await api(sac, 'GET', `/api/v1/hosts/${ids['WS-4']}`, { token })).body;
    expect(host.agent_version).toBe('2.1.7-SAC');
    expect(hostIn(await rollout(first), 'WS-4')).toMatchObject({ state: 'rolled_back', version: '2.1.7-SAC' });
  });

  it('halts by itself when a canary host reports agent.update.failed, saying which host and why', async () => {
    // The lab hosts went to 2.1.8 in the first rollout: back to 2.1.7 as their agents report it.
    for (const name of SECOND) await send(name, 'agent.heartbeat', '2.1.7-SAC');
    const started = await api(sac, 'POST', '/api/v1/rollouts', {
      token,
      body: { product: 'rdp-login-monitor', hosts: { groups: [lab] }, canary: [ids['LAB-1']], waves: [{ percent: 100, soak_minutes: 0 }] },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    second = started.body.id;
    await send('LAB-1', 'agent.update.started', '2.1.7-SAC');
    await send('LAB-1', 'agent.update.failed', '2.1.7-SAC');
    const r = await until('the halt', second, (x) => x.state === 'halted');
    expect(r.halt_reason).toContain('The canary ring: 1 of 1 updated hosts failed');
    expect(r.halt_reason).toContain('LAB-1 (agent.update.failed on LAB-1)');
    expect(r.rings.map((ring) => ring.state)).toEqual(['failed', 'waiting']);
    expect(hostIn(r, 'LAB-2')).toMatchObject({ state: 'waiting', job_id: null });
    // Its newest job is still the first rollout's: no job of the wave was created.
    expect((await job('LAB-2')).state).toBe('success');
    const audit = (await api(sac, 'GET', '/api/v1/audit?limit=50', { token })).body.entries as { action: string; target: string; outcome: string }[];
    expect(audit.find((a) => a.target === `rollout:${second}` && a.action === 'rollout.halted')).toMatchObject({ outcome: 'failed' });
  });

  it('pauses, resumes a halted ring with new jobs for its failed hosts, and aborts, cancelling jobs no agent was offered', async () => {
    const resumed = await api(sac, 'POST', `/api/v1/rollouts/${second}/resume`, { token });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body).toMatchObject({ state: 'running', halt_reason: null });
    const retry = await job('LAB-1');
    expect(retry).toMatchObject({ state: 'pending', target_version: '2.1.8-SAC' });
    expect((await api(sac, 'POST', `/api/v1/rollouts/${second}/pause`, { token })).body.state).toBe('paused');
    expect((await api(sac, 'POST', `/api/v1/rollouts/${second}/pause`, { token })).body.error.code).toBe('rollout/bad_state');
    // Paused: the canary's host still finishes, but no further ring starts.
    await send('LAB-1', 'agent.update.success', '2.1.8-SAC');
    await until('the canary updated while paused', second, (x) => hostIn(x, 'LAB-1').state === 'updated');
    expect((await rollout(second)).rings.map((ring) => ring.state)).toEqual(['updating', 'waiting']);
    await api(sac, 'POST', `/api/v1/rollouts/${second}/resume`, { token });
    await until('the wave started', second, (x) => x.rings[1].state === 'updating');
    const aborted = await api(sac, 'POST', `/api/v1/rollouts/${second}/abort`, { token });
    expect(aborted.body).toMatchObject({ state: 'aborted' });
    expect([hostIn(aborted.body, 'LAB-2'), hostIn(aborted.body, 'LAB-3')]).toMatchObject([
      { state: 'skipped', reason: 'aborted' },
      { state: 'skipped', reason: 'aborted' },
    ]);
    const cancelled = (await api(sac, 'GET', `/api/v1/agent-updates/${hostIn(aborted.body, 'LAB-2').job_id}`, { token })).body;
    expect(cancelled).toMatchObject({ state: 'failed', output: expect.stringContaining('was aborted') });
    // No job of the wave is left to hand out (one the leader's run created while it lost the race is cancelled too).
    await waitFor('no pending job of LAB-2', async () => !(await api(sac, 'GET', `/api/v1/agent-updates?host_id=${ids['LAB-2']}&state=pending`, { token })).body.jobs.length);
    expect((await api(sac, 'POST', `/api/v1/rollouts/${second}/resume`, { token })).status).toBe(409);
  });

  it('shows a monitor limited to a group only the rollouts all of whose hosts are theirs, on the API and the stream', async () => {
    const monitor = await createUser(sac, 'monitor');
    await api(sac, 'PUT', `/api/v1/users/${monitor.user.id}/host-groups`, { token, body: { group_ids: [lab] } });
    const limited = (await login(sac, monitor.user.username, monitor.password)).body.token as string;
    const listed = (await api(sac, 'GET', '/api/v1/rollouts', { token: limited })).body.rollouts as { id: string }[];
    expect(listed.map((r) => r.id)).toEqual([second]);
    expect((await api(sac, 'GET', `/api/v1/rollouts/${first}`, { token: limited })).status).toBe(404);
    expect((await api(sac, 'GET', `/api/v1/rollouts/${second}`, { token: limited })).status).toBe(200);
    const limitedStream = await openStream(sac, { token: limited });
    const adminStream = await openStream(sac, { token });
    try {
      // A change of the first rollout (a rollback of WS-3), then of a new lab-only one.
      await api(sac, 'POST', `/api/v1/rollouts/${first}/hosts/${ids['WS-3']}/rollback`, { token });
      for (const name of SECOND) await send(name, 'agent.heartbeat', '2.1.7-SAC');
      const third = (await api(sac, 'POST', '/api/v1/rollouts', { token, body: { product: 'rdp-login-monitor', hosts: { groups: [lab] }, waves: [{ percent: 100, soak_minutes: 0 }] } })).body.id as string;
      await adminStream.next((f) => f.event === 'rollout.changed' && f.data.id === first);
      await adminStream.next((f) => f.event === 'rollout.changed' && f.data.id === third);
      const frame = await limitedStream.next((f) => f.event === 'rollout.changed' && f.data.id === third);
      expect(frame.data).toMatchObject({ state: 'running', current_ring: 0, counts: { hosts: 3, updating: 3 } });
      expect(limitedStream.frames.filter((f) => f.event === 'rollout.changed' && f.data.id === first)).toEqual([]);
    } finally {
      limitedStream.close();
      adminStream.close();
    }
  });

  it('holds a start back under the approval policy until a second admin approves it', async () => {
    await api(sac, 'PATCH', '/api/v1/settings/approvals', { token, body: { require: ['rollout_start'] } });
    const body = { product: 'rdp-login-monitor', target_version: '2.1.8-SAC', hosts: { groups: [lab] }, waves: [{ percent: 100, soak_minutes: 0 }] };
    const held = await api(sac, 'POST', '/api/v1/rollouts', { token, body });
    expect([held.status, held.body.error.code]).toEqual([409, 'approval/required']);
    const filed = await api(sac, 'POST', '/api/v1/approvals', { token, body: { request: held.body.error.details.request, reason: 'monthly agent release' } });
    expect(filed.body).toMatchObject({ state: 'pending', action: 'rollout_start', summary: expect.stringContaining('Start a rollout of rdp-login-monitor 2.1.8-SAC on 3 hosts') });
    expect(filed.body.host_ids.sort()).toEqual(SECOND.map((n) => ids[n]).sort());
    expect((await api(sac, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token, body: {} })).body.error.code).toBe('approval/own_request');
    const second = await createUser(sac, 'admin');
    const secondToken = (await login(sac, second.user.username, second.password)).body.token as string;
    const approved = await api(sac, 'POST', `/api/v1/approvals/${filed.body.id}/approve`, { token: secondToken, body: {} });
    expect(approved.body).toMatchObject({ state: 'approved', result: { ok: true, detail: expect.stringContaining('rollout of rdp-login-monitor 2.1.8-SAC started') } });
    const latest = ((await api(sac, 'GET', '/api/v1/rollouts?limit=1', { token })).body.rollouts as RolloutBody[])[0];
    expect(latest).toMatchObject({ created_by: sac.adminUsername, approved_by: second.user.username });
    await api(sac, 'PATCH', '/api/v1/settings/approvals', { token, body: { require: [] } });
  });

  it('leaves a host with another update under way alone when rolling back', async () => {
    // LAB-1 has the last rollout's update pending: rolling it back in the second one must wait.
    const busy = await api(sac, 'POST', `/api/v1/rollouts/${second}/hosts/${ids['LAB-1']}/rollback`, { token });
    expect([busy.status, busy.body.error.code, busy.body.error.message]).toEqual([409, 'rollout/host_busy', expect.stringContaining('LAB-1 (to 2.1.8-SAC)')]);
    expect(hostIn(await rollout(second), 'LAB-1').state).toBe('updated');
  });

  it('lists and removes pins, refuses an unknown release tag', async () => {
    const pins = (await api(sac, 'GET', '/api/v1/agent-pins?product=rdp-login-monitor', { token })).body.pins as { id: string; target_name: string }[];
    expect(pins.map((p) => p.target_name)).toEqual(['WS-5']);
    expect((await api(sac, 'DELETE', `/api/v1/agent-pins/${pins[0].id}`, { token })).status).toBe(204);
    expect((await api(sac, 'DELETE', `/api/v1/agent-pins/${pins[0].id}`, { token })).status).toBe(404);
    const unknown = await api(sac, 'POST', '/api/v1/rollouts', { token, body: { product: 'rdp-login-monitor', target_version: '9.9.9', hosts: { all_outdated: true }, waves: [{ percent: 100, soak_minutes: 0 }] } });
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'git/no_release']);
  });
});
