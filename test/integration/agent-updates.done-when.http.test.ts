import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { adminToken, api } from '../helpers/auth.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { agentLifecycleEvent } from '../helpers/events.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';

const WIN_USER = 'CORP\\svc-sac';
const WIN_PASSWORD = 'Winrm-Pass-42';

/**
 * Issue #13's "Done when", as one story on one daemon with every real peer: git repositories made
 * here (one over `git daemon`, one over `file://`), the WinRM stand-in, and a real sshd. The
 * single steps are covered in depth by agent-versions, agent-updates, agent-updates.push and
 * agent-updates.ssh-push; this test shows they add up.
 */
describe.skipIf(!sshdAvailable())('agent versions and updates, end to end', () => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let winrm: WinRmPeer;
  let sshd: SshdPeer;
  let root: string;
  const clock = new TestClock();
  const ids: Record<string, string> = {};
  const HOSTS = {
    'WS-AGENT': { product: 'rdp-login-monitor', os_family: 'windows', version: '2.1.7-SAC' },
    'WS-SILENT': { product: 'rdp-login-monitor', os_family: 'windows', version: '2.1.7-SAC' },
    'LNX-1': { product: 'ssh-monitor', os_family: 'linux', version: '1.1.2-ipset' },
  } as const;
  type Name = keyof typeof HOSTS;

  const send = (name: Name, type: string, version: string, details: Record<string, unknown> = {}) =>
    ingestEvent(sac, agentLifecycleEvent({ hostname: name, ...HOSTS[name] }, type, version, details));
  const host = async (name: Name) => (await api(sac, 'GET', `/api/v1/hosts/${ids[name]}`, { token })).body;
  const jobIn = (name: Name, state: string) =>
    waitFor(`${name} ${state}`, async () => {
      const job = (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${ids[name]}`, { token })).body.jobs[0];
      return job?.state === state ? job : null;
    }, 30_000);
  const sha256 = async (res: Response) => createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex');

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'sac-done-when-'));
    repos = await startGitRepos();
    repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'param($SourceShareRoot)' }, 'v2.1.7-SAC');
    repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
    repos.commit('ssh-monitor', {
      'ssh-monitor': '#!/bin/bash\nSSH_MONITOR_VERSION="1.1.2-ipset"\n',
      'install.sh': `#!/bin/sh\nset -e\ncp ./ssh-monitor '${root}/ssh-monitor'\n`,
    });
    repos.commit('ssh-monitor', { 'ssh-monitor': '#!/bin/bash\nSSH_MONITOR_VERSION="1.1.3-ipset"\n' });
    winrm = await startWinRmPeer({ user: WIN_USER, password: WIN_PASSWORD });
    sshd = await startSshd();
    const port = await freePort();
    sac = await startTestSac('sqlite', { SAC_PORT: String(port), SAC_PUBLIC_URL: `http://127.0.0.1:${port}`, SAC_AGENT_VERSION_CHECK_SECONDS: '0.2' }, { clock });
    token = await adminToken(sac);
    const settings: Record<string, unknown> = {
      git_repos: {
        repos: [
          { product: 'rdp-login-monitor', url: repos.gitUrl('rdp-login-monitor') },
          { product: 'ssh-monitor', url: repos.fileUrl('ssh-monitor'), version_from: 'file' },
        ],
      },
      windows_admin: { username: WIN_USER, password: WIN_PASSWORD, transport: 'http', port: winrm.port },
      ssh_admin: { username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts },
      agent_updates: {
        enabled: true,
        fallback_after_minutes: 30,
        ssh_restart_command: `touch '${root}/restarted'`,
        ssh_version_command: `grep -h '^SSH_MONITOR_VERSION=' '${root}/ssh-monitor'`,
      },
    };
    for (const [category, body] of Object.entries(settings)) expect((await api(sac, 'PATCH', `/api/v1/settings/${category}`, { token, body })).status).toBe(200);
  });
  afterAll(async () => {
    await sac?.close();
    await winrm?.stop();
    await sshd?.stop();
    await repos?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reads the latest versions from git, shows the outdated hosts, updates them by agent, WinRM and SSH, and drops the badge', async () => {
    // Latest versions from git: 2.1.8-SAC is newer than 2.1.7-SAC.
    const refreshed = await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    expect(refreshed.body.versions).toEqual([
      expect.objectContaining({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', error: null }),
      expect.objectContaining({ product: 'ssh-monitor', latest_version: '1.1.3-ipset', error: null }),
    ]);

    // One outdated badge.
    for (const name of Object.keys(HOSTS) as Name[]) await send(name, 'agent.heartbeat', HOSTS[name].version);
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) ids[h.hostname] = h.id;
    // All agents here connect from loopback, which identifies none of them: an admin pins the WinRM host.
    expect((await api(sac, 'PUT', `/api/v1/hosts/${ids['WS-SILENT']}/action-address`, { token, body: { address: '127.0.0.1' } })).status).toBe(200);
    expect(await host('WS-AGENT')).toMatchObject({ agent_version: '2.1.7-SAC', latest_version: '2.1.8-SAC', outdated: true });
    expect((await api(sac, 'GET', '/api/v1/hosts?outdated=true', { token })).body.items).toHaveLength(3);
    expect((await api(sac, 'GET', '/api/v1/dashboards/summary', { token })).body.hosts.outdated).toBe(3);

    // An agent-driven update: pending, offered on poll, started → success from the agent's events.
    const body = { product: 'rdp-login-monitor', hosts: { all_outdated: true }, waves: [{ percent: 100, soak_minutes: 0 }] };
    const started = await api(sac, 'POST', '/api/v1/rollouts', { token, body });
    expect(started.body.counts).toMatchObject({ hosts: 2, updating: 2 });
    await jobIn('WS-AGENT', 'pending');
    const poll = await fetch(`${sac.url}/api/v1/agent/poll?agent_instance_id=agent-WS-AGENT`, { headers: { Authorization: `Bearer ${sac.apiKey}` } });
    const { update } = (await poll.json()) as { update: { url: string; sha256: string; version: string } };
    expect(update.version).toBe('2.1.8-SAC');
    expect(await sha256(await fetch(update.url))).toBe(update.sha256);
    await send('WS-AGENT', 'agent.update.started', '2.1.7-SAC');
    await jobIn('WS-AGENT', 'started');
    await send('WS-AGENT', 'agent.update.success', '2.1.8-SAC');
    await jobIn('WS-AGENT', 'success');

    // The silent Windows agent: SAC pushes over WinRM once the fallback time has passed.
    clock.advance(31 * 60_000);
    await waitFor('the WinRM push', () => winrm.recordedScripts().length > 0, 30_000);
    const script = winrm.recordedScripts().at(-1)!;
    const download = await fetch(/-Uri '([^']+)'/.exec(script)![1]);
    expect(await sha256(download)).toBe(/-ne '([0-9a-f]{64})'/.exec(script)![1]);
    expect((await jobIn('WS-SILENT', 'fallback')).path).toBe('winrm');
    await send('WS-SILENT', 'agent.lifecycle', '2.1.8-SAC', { lifecycle: 'updated', version: '2.1.8-SAC' });
    await jobIn('WS-SILENT', 'success');

    // The Linux host: the admin moves the loopback pin to it (the sshd stands in for it), and SAC
    // pushes over SSH once the fallback time has passed.
    await api(sac, 'DELETE', `/api/v1/hosts/${ids['WS-SILENT']}/action-address`, { token });
    expect((await api(sac, 'PUT', `/api/v1/hosts/${ids['LNX-1']}/action-address`, { token, body: { address: '127.0.0.1' } })).status).toBe(200);
    await api(sac, 'POST', `/api/v1/hosts/${ids['LNX-1']}/agent-update`, { token });
    clock.advance(31 * 60_000);
    const linux = await jobIn('LNX-1', 'success');
    expect(linux).toMatchObject({ path: 'ssh', target_version: '1.1.3-ipset' });
    expect(readFileSync(path.join(root, 'ssh-monitor'), 'utf8')).toContain('1.1.3-ipset');

    // The badge disappears when the new versions are reported.
    await send('WS-AGENT', 'agent.heartbeat', '2.1.8-SAC');
    await send('LNX-1', 'agent.heartbeat', '1.1.3-ipset');
    for (const name of Object.keys(HOSTS) as Name[]) expect((await host(name)).outdated).toBe(false);
    expect((await api(sac, 'GET', '/api/v1/hosts?outdated=true', { token })).body.items).toEqual([]);
    expect((await api(sac, 'GET', '/api/v1/dashboards/summary', { token })).body.hosts.outdated).toBe(0);
  });
});
