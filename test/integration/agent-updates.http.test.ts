import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdpUpdates } from '../helpers/agent-updates.js';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import type { GitReposPeer } from '../peers/git-repos.peer.js';
import { waitFor } from '../helpers/clock.js';

const AGENT_A = '0b8c6f2e-1d3a-4e5f-9a7b-2c4d6e8f0a1b';
const AGENT_B = '1c9d7a3f-2e4b-4f6a-8b8c-3d5e7f9a1b2c';

describe.each(STORE_KINDS)('agent updates on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  const hostIds: Record<string, string> = {};

  const agentGet = (path: string, key: string | null = sac.apiKey) =>
    fetch(`${sac.url}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
  interface PollAnswer {
    update: { job_id: string; version: string; url: string; sha256: string } | null;
    config: Record<string, unknown>;
  }
  const poll = async (instance: string) => (await (await agentGet(`/api/v1/agent/poll?agent_instance_id=${instance}`)).json()) as PollAnswer;
  const sendFrom = (hostname: string, instance: string, type: string, version: string, details: Record<string, unknown> = {}) =>
    ingestEvent(sac, {
      type,
      category: 'agent',
      severity: type.endsWith('failed') ? 'high' : 'info',
      title: type,
      summary: type.endsWith('failed') ? 'Deploy-LoginMonitor.ps1 exited with 1: access denied' : type,
      source: { product: 'rdp-login-monitor', product_version: version, agent_instance_id: instance },
      host: { hostname, os_family: 'windows', ipv4: hostname === 'WS-A' ? '10.0.0.31' : '10.0.0.32' },
      details: { generated_by: 'agent', ...details },
    });
  const job = async (hostId: string) => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${hostId}`, { token })).body.jobs[0];
  /** The host's job once it has reached `state` (jobs move on the daemon's bus, just after the 201). */
  const jobIn = (hostname: string, state: string) =>
    waitFor(`${hostname} ${state}`, async () => {
      const j = await job(hostIds[hostname]);
      return j.state === state ? j : null;
    });

  beforeAll(async () => {
    sac = await startTestSac(kind);
    token = await adminToken(sac);
    repos = await startRdpUpdates(sac, token);
    await sendFrom('WS-A', AGENT_A, 'agent.heartbeat', '2.1.7-SAC');
    await sendFrom('WS-B', AGENT_B, 'agent.heartbeat', '2.1.7-SAC');
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) hostIds[h.hostname] = h.id;
  });
  afterAll(async () => {
    await sac?.close();
    await repos?.close();
  });

  it('shows one outdated badge: on the host, in the outdated filter and as a dashboard count', async () => {
    const host = (await api(sac, 'GET', `/api/v1/hosts/${hostIds['WS-A']}`, { token })).body;
    expect(host).toMatchObject({ agent_version: '2.1.7-SAC', latest_version: '2.1.8-SAC', outdated: true });
    const outdated = await api(sac, 'GET', '/api/v1/hosts?outdated=true', { token });
    expect(outdated.body.items.map((h: { hostname: string }) => h.hostname).sort()).toEqual(['WS-A', 'WS-B']);
    expect((await api(sac, 'GET', '/api/v1/hosts?outdated=false', { token })).body.items).toEqual([]);
    expect((await api(sac, 'GET', '/api/v1/dashboards/summary', { token })).body.hosts.outdated).toBe(2);
  });

  it('lets only admins start updates, and answers an agent without work with an empty poll', async () => {
    const monitor = await userToken(sac, 'monitor');
    expect((await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-A']}/agent-update`, { token: monitor })).status).toBe(403);
    expect(await poll(AGENT_A)).toEqual({ update: null, config: {} });
    // The key never sent events for that installation: it does not speak for it.
    expect((await agentGet('/api/v1/agent/poll?agent_instance_id=unknown-instance')).status).toBe(403);
    expect((await agentGet(`/api/v1/agent/poll?agent_instance_id=${AGENT_A}`, null)).status).toBe(401);
    expect((await agentGet(`/api/v1/agent/poll?agent_instance_id=${AGENT_A}`, token)).status).toBe(401);
  });

  it('a rollout of a product starts one job per outdated host, and at most max_parallel are handed out at once', async () => {
    const rollout = { product: 'rdp-login-monitor', hosts: { all_outdated: true }, waves: [{ percent: 100, soak_minutes: 0 }] };
    const started = await api(sac, 'POST', '/api/v1/rollouts', { token, body: rollout });
    expect(started.status).toBe(201);
    expect(started.body.counts).toMatchObject({ hosts: 2, updating: 2 });
    const jobs = (await api(sac, 'GET', '/api/v1/agent-updates', { token })).body.jobs;
    expect(jobs.map((j: { state: string; target_version: string }) => [j.state, j.target_version])).toEqual([
      ['pending', '2.1.8-SAC'],
      ['pending', '2.1.8-SAC'],
    ]);
    const again = await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-A']}/agent-update`, { token });
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);

    const a = await poll(AGENT_A);
    expect(a.update).toMatchObject({ job_id: (await job(hostIds['WS-A'])).id, version: '2.1.8-SAC', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    if (!a.update) throw new Error('no update offered');
    expect(a.update.url).toMatch(new RegExp(`^${sac.url}/api/v1/agent/rdp-bundle/[A-Za-z0-9_-]{43}$`));
    expect((await poll(AGENT_B)).update).toBeNull();

    const download = await fetch(a.update.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/zip');
    const body = Buffer.from(await download.arrayBuffer());
    expect(body.subarray(0, 2).toString()).toBe('PK');
    expect(createHash('sha256').update(body).digest('hex')).toBe(a.update.sha256);
    expect(body.includes(Buffer.from('Deploy-LoginMonitor.ps1'))).toBe(true);
    expect((await fetch(`${sac.url}/api/v1/agent/rdp-bundle/${'x'.repeat(43)}`)).status).toBe(404);
  });

  it('moves the job with the agent events: started, then success when the new version is reported', async () => {
    await sendFrom('WS-A', AGENT_A, 'agent.update.started', '2.1.7-SAC');
    await jobIn('WS-A', 'started');
    await sendFrom('WS-A', AGENT_A, 'agent.lifecycle', '2.1.8-SAC', { lifecycle: 'updated', version: '2.1.8-SAC' });
    await jobIn('WS-A', 'success');
    // The badge goes with the new version.
    expect((await api(sac, 'GET', `/api/v1/hosts/${hostIds['WS-A']}`, { token })).body).toMatchObject({ agent_version: '2.1.8-SAC', outdated: false });
    // The slot is free: the second host gets its update now.
    expect((await poll(AGENT_B)).update).toMatchObject({ version: '2.1.8-SAC' });
    await sendFrom('WS-B', AGENT_B, 'agent.update.failed', '2.1.7-SAC');
    const failed = await jobIn('WS-B', 'failed');
    expect(failed.output).toMatch(/access denied/);
    const audit = await api(sac, 'GET', '/api/v1/audit?action=agent_update.success', { token });
    expect(audit.body.entries).toHaveLength(1);
  });

  it('refuses an update of a host that is current, and serves the desired configuration on poll', async () => {
    const current = await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-A']}/agent-update`, { token });
    expect(current.status).toBe(409);
    expect(current.body.error.code).toBe('update/not_outdated');
    const put = await api(sac, 'PUT', `/api/v1/hosts/${hostIds['WS-A']}/agent-config`, { token, body: { HeartbeatMinutes: 5, Products: ['rdp'] } });
    expect(put.status).toBe(200);
    expect(await poll(AGENT_A)).toEqual({ update: null, config: { HeartbeatMinutes: 5, Products: ['rdp'] } });
    const tooBig = await api(sac, 'PUT', `/api/v1/hosts/${hostIds['WS-A']}/agent-config`, { token, body: { blob: 'x'.repeat(70_000) } });
    expect(tooBig.status).toBe(400);
  });
});
