import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRdpUpdates } from '../helpers/agent-updates.js';
import { adminToken, api } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { openStream, type OpenStream } from '../helpers/stream.js';
import type { GitReposPeer } from '../peers/git-repos.peer.js';

const AGENT = '5e2a9c1d-7b3f-4a6e-8d0c-1f2b3c4d5e6f';

/**
 * Update jobs move with the agents' committed events, whatever the console shows: hiding
 * `agent.heartbeat` (the hidden-types setting) keeps heartbeats off the stream and out of lists,
 * but a heartbeat reporting the new version still completes the job.
 */
describe.each(STORE_KINDS)('agent updates with hidden heartbeats on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let stream: OpenStream;
  let hostId: string;

  const heartbeat = (version: string, title: string) =>
    ingestEvent(sac, {
      type: 'agent.heartbeat',
      category: 'agent',
      severity: 'info',
      title,
      source: { product: 'rdp-login-monitor', product_version: version, agent_instance_id: AGENT },
      host: { hostname: 'WS-HIDDEN', os_family: 'windows', ipv4: '10.0.0.41' },
      details: { generated_by: 'agent' },
    });
  const job = async () => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${hostId}`, { token })).body.jobs[0];

  beforeAll(async () => {
    sac = await startTestSac(kind);
    token = await adminToken(sac);
    repos = await startRdpUpdates(sac, token);
    await heartbeat('2.1.7-SAC', 'first heartbeat');
    hostId = (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items[0].id;
    stream = await openStream(sac, { token });
  });
  afterAll(async () => {
    stream?.close();
    await sac?.close();
    await repos?.close();
  });

  it('completes an update job on a hidden heartbeat, and the stream still leaves heartbeats out', async () => {
    expect((await api(sac, 'PATCH', '/api/v1/settings/hidden_types', { token, body: { types: ['agent.heartbeat'] } })).status).toBe(200);
    const started = await api(sac, 'POST', `/api/v1/hosts/${hostId}/agent-update`, { token });
    expect(started.status).toBe(201);
    expect(started.body.job).toMatchObject({ state: 'pending', target_version: '2.1.8-SAC' });

    await heartbeat('2.1.8-SAC', 'heartbeat after the update');
    const done = await waitFor('job success', async () => {
      const j = await job();
      return j.state === 'success' ? j : null;
    });
    expect(done).toMatchObject({ host_id: hostId, target_version: '2.1.8-SAC' });

    // A visible event sent after the heartbeat reaches the stream; the hidden heartbeat before it
    // did not (the first heartbeat, visible when sent, may reach a MongoDB stream late through the feed).
    await ingestEvent(sac, {
      type: 'rdp.login.success',
      severity: 'info',
      title: 'marker',
      source: { product: 'rdp-login-monitor', product_version: '2.1.8-SAC', agent_instance_id: AGENT },
      host: { hostname: 'WS-HIDDEN', os_family: 'windows', ipv4: '10.0.0.41' },
    });
    await stream.next((f) => f.event === 'event.ingested' && f.data.title === 'marker');
    const shown = stream.frames.filter((f) => f.event === 'event.ingested').map((f) => f.data.title);
    expect(shown).toContain('marker');
    expect(shown).not.toContain('heartbeat after the update');
  });
});
