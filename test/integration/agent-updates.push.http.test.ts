import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { adminToken, api } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { aFullJobRun } from '../helpers/jobs.js';
import { agentLifecycleEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';
import { waitFor } from '../helpers/clock.js';

const USER = 'CORP\\svc-sac';
const PASSWORD = 'Winrm-Pass-42';

describe.each(STORE_KINDS)('agent update pushed over WinRM when the agent is silent, on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let winrm: WinRmPeer;
  const clock = new TestClock();
  const hostIds: Record<string, string> = {};

  const sendFrom = (hostname: string, type: string, version: string, details: Record<string, unknown> = {}) =>
    ingestEvent(sac, agentLifecycleEvent({ hostname, os_family: 'windows', product: 'rdp-login-monitor' }, type, version, details));
  const jobOf = async (hostname: string) => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${hostIds[hostname]}`, { token })).body.jobs[0];

  beforeAll(async () => {
    repos = await startGitRepos();
    repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'param($SourceShareRoot)' }, 'v2.1.7-SAC');
    repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
    winrm = await startWinRmPeer({ user: USER, password: PASSWORD });
    const port = await freePort();
    sac = await startTestSac(kind, { SAC_PORT: String(port), SAC_PUBLIC_URL: `http://127.0.0.1:${port}`, SAC_AGENT_VERSION_CHECK_SECONDS: '0.2' }, { clock });
    token = await adminToken(sac);
    await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ product: 'rdp-login-monitor', url: repos.fileUrl('rdp-login-monitor') }] } });
    await api(sac, 'PATCH', '/api/v1/settings/windows_admin', { token, body: { username: USER, password: PASSWORD, transport: 'http', port: winrm.port } });
    await api(sac, 'PATCH', '/api/v1/settings/agent_updates', { token, body: { enabled: true, fallback_after_minutes: 30 } });
    await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    await sendFrom('WS-SILENT', 'agent.heartbeat', '2.1.7-SAC');
    await sendFrom('WS-MANUAL', 'agent.heartbeat', '2.1.7-SAC');
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) hostIds[h.hostname] = h.id;
  });
  // Both hosts' agents connect from loopback, which identifies neither: an admin pins the one pushed to.
  const pin = async (hostname: string) => {
    for (const id of Object.values(hostIds)) await api(sac, 'DELETE', `/api/v1/hosts/${id}/action-address`, { token });
    expect((await api(sac, 'PUT', `/api/v1/hosts/${hostIds[hostname]}/action-address`, { token, body: { address: '127.0.0.1' } })).status).toBe(200);
  };
  afterAll(async () => {
    await sac?.close();
    await winrm?.stop();
    await repos?.close();
  });

  it('waits for the agent, then pushes the bundle over WinRM; the stand-in is told to download a bundle whose hash matches', async () => {
    await pin('WS-SILENT');
    const started = await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-SILENT']}/agent-update`, { token });
    expect(started.status).toBe(201);
    const before = winrm.recordedScripts().length;
    await aFullJobRun('agent_update_fallback', { url: sac.url, token });
    expect(winrm.recordedScripts()).toHaveLength(before);
    expect((await jobOf('WS-SILENT')).state).toBe('pending');

    clock.advance(31 * 60_000);
    await waitFor('the fallback push', () => winrm.recordedScripts().length > before, 20_000);
    const pushed = await jobOf('WS-SILENT');
    expect(pushed).toMatchObject({ state: 'fallback', path: 'winrm' });
    const script = winrm.recordedScripts().at(-1)!;
    const url = /-Uri '([^']+)'/.exec(script)![1];
    const sha = /-ne '([0-9a-f]{64})'/.exec(script)![1];
    expect(url).toMatch(new RegExp(`^${sac.url}/api/v1/agent/rdp-bundle/`));
    expect(script).toContain('-SourceShareRoot');
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await download.arrayBuffer())).digest('hex')).toBe(sha);
    expect((await fetch(url)).status).toBe(404);

    await sendFrom('WS-SILENT', 'agent.lifecycle', '2.1.8-SAC', { lifecycle: 'updated', version: '2.1.8-SAC' });
    await waitFor('success after the push', async () => (await jobOf('WS-SILENT')).state === 'success', 20_000);
    const host = (await api(sac, 'GET', `/api/v1/hosts/${hostIds['WS-SILENT']}`, { token })).body;
    expect(host.agent_version).toBe('2.1.8-SAC');
  });

  it('pushes at once when an admin asks, and a push that cannot reach the host leaves the job failed with the reason', async () => {
    await pin('WS-MANUAL');
    await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-MANUAL']}/agent-update`, { token });
    await api(sac, 'PATCH', '/api/v1/settings/windows_admin', { token, body: { password: 'wrong-password' } });
    const job = await jobOf('WS-MANUAL');
    const pushed = await api(sac, 'POST', `/api/v1/agent-updates/${job.id}/push`, { token });
    expect(pushed.status).toBe(200);
    expect(pushed.body.state).toBe('failed');
    expect(pushed.body.output).toMatch(/authentication|password|credentials/i);
    const again = await api(sac, 'POST', `/api/v1/agent-updates/${job.id}/push`, { token });
    expect(again.status).toBe(409);
  });

  it('pushes nothing to a host whose address is unverified; the job says an admin must pin it', async () => {
    await sendFrom('WS-UNPINNED', 'agent.heartbeat', '2.1.7-SAC');
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) hostIds[h.hostname] = h.id;
    expect((await api(sac, 'POST', `/api/v1/hosts/${hostIds['WS-UNPINNED']}/agent-update`, { token })).status).toBe(201);
    const before = winrm.recordedScripts().length;
    const pushed = await api(sac, 'POST', `/api/v1/agent-updates/${(await jobOf('WS-UNPINNED')).id}/push`, { token });
    expect(pushed.body).toMatchObject({ state: 'failed', output: expect.stringMatching(/address of WS-UNPINNED is unverified .*an admin must pin/) });
    expect(winrm.recordedScripts()).toHaveLength(before);
  });
});
