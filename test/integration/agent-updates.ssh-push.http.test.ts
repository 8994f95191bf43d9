import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { aFullJobRun } from '../helpers/jobs.js';
import { agentLifecycleEvent } from '../helpers/events.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';

const SSH_MONITOR_SCRIPT = (version: string) => `#!/bin/bash\n# ssh-monitor\nSSH_MONITOR_VERSION="${version}"\nmain() { :; }\n`;

/**
 * The ssh-monitor repository's installer as the fake of this test: it copies the script under the
 * test's own folder (never the system's) and records who installed which version.
 */
const INSTALL_SCRIPT = (root: string) =>
  [
    '#!/bin/sh',
    'set -e',
    `mkdir -p '${root}/bin'`,
    `cp ./ssh-monitor '${root}/bin/ssh-monitor'`,
    `v=$(sed -n 's/^SSH_MONITOR_VERSION="\\(.*\\)"$/\\1/p' ./ssh-monitor)`,
    `echo "$(id -u) $v" >> '${root}/installs.log'`,
    'echo "installed ssh-monitor $v"',
    '',
  ].join('\n');

// The sshd peer creates local users and a sudoers file: root only (as in CI, after setup-test-deps).
describe.skipIf(!sshdAvailable())('agent update pushed over SSH to a Linux host, against a real sshd', () => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let sshd: SshdPeer;
  let root: string;
  const clock = new TestClock();
  const hostIds: Record<string, string> = {};

  const sendFrom = (hostname: string, type: string, version: string) =>
    ingestEvent(sac, agentLifecycleEvent({ hostname, os_family: 'linux', product: 'ssh-monitor' }, type, version));
  const jobOf = async (hostname: string) => (await api(sac, 'GET', `/api/v1/agent-updates?host_id=${hostIds[hostname]}`, { token })).body.jobs[0];
  const installs = () => (existsSync(path.join(root, 'installs.log')) ? readFileSync(path.join(root, 'installs.log'), 'utf8').trim().split('\n') : []);
  const restarts = () => (existsSync(path.join(root, 'restarts.log')) ? readFileSync(path.join(root, 'restarts.log'), 'utf8').trim().split('\n') : []);
  const hostOf = async (hostname: string) => (await api(sac, 'GET', `/api/v1/hosts/${hostIds[hostname]}`, { token })).body;
  /**
   * Every agent here connects from loopback, so none has a verified address of its own: an admin
   * pins the sshd's address to the one host a test pushes to (moving the pin from the last one).
   */
  const pinSshdTo = async (hostname: string) => {
    for (const id of Object.values(hostIds)) await api(sac, 'DELETE', `/api/v1/hosts/${id}/action-address`, { token });
    expect((await api(sac, 'PUT', `/api/v1/hosts/${hostIds[hostname]}/action-address`, { token, body: { address: '127.0.0.1' } })).status).toBe(200);
  };

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'sac-ssh-push-'));
    repos = await startGitRepos();
    repos.commit('ssh-monitor', { 'ssh-monitor': SSH_MONITOR_SCRIPT('1.1.2-ipset'), 'install.sh': INSTALL_SCRIPT(root) });
    repos.commit('ssh-monitor', { 'ssh-monitor': SSH_MONITOR_SCRIPT('1.1.3-ipset') });
    sshd = await startSshd();
    sac = await startTestSac('sqlite', { SAC_AGENT_VERSION_CHECK_SECONDS: '0.2' }, { clock });
    token = await adminToken(sac);
    await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ product: 'ssh-monitor', url: repos.fileUrl('ssh-monitor'), version_from: 'file' }] } });
    await api(sac, 'PATCH', '/api/v1/settings/ssh_admin', { token, body: { username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts } });
    const updates = await api(sac, 'PATCH', '/api/v1/settings/agent_updates', {
      token,
      body: {
        enabled: true,
        fallback_after_minutes: 30,
        // The service restart is faked: the test machine has no ssh-monitor unit.
        ssh_restart_command: `echo restarted >> '${root}/restarts.log'`,
        ssh_version_command: `grep -h '^SSH_MONITOR_VERSION=' '${root}/bin/ssh-monitor'`,
      },
    });
    expect(updates.status).toBe(200);
    await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    for (const name of ['LNX-SILENT', 'LNX-MANUAL', 'LNX-NOSUDO', 'LNX-TAMPERED']) await sendFrom(name, 'agent.heartbeat', '1.1.2-ipset');
    for (const h of (await api(sac, 'GET', '/api/v1/hosts', { token })).body.items) hostIds[h.hostname] = h.id;
  });
  afterAll(async () => {
    await sac?.close();
    await sshd?.stop();
    await repos?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('waits for the silent agent, then uploads, checks, installs as root, restarts and reads the version back; the badge goes when the agent reports it', async () => {
    expect(await hostOf('LNX-SILENT')).toMatchObject({ agent_version: '1.1.2-ipset', latest_version: '1.1.3-ipset', outdated: true });
    await pinSshdTo('LNX-SILENT');
    expect((await api(sac, 'POST', `/api/v1/hosts/${hostIds['LNX-SILENT']}/agent-update`, { token })).status).toBe(201);
    await aFullJobRun('agent_update_fallback', { url: sac.url, token });
    expect(installs()).toEqual([]);
    expect((await jobOf('LNX-SILENT')).state).toBe('pending');

    clock.advance(31 * 60_000);
    await waitFor('the SSH fallback push', async () => (await jobOf('LNX-SILENT')).state === 'success', 30_000);
    const job = await jobOf('LNX-SILENT');
    expect(job).toMatchObject({ state: 'success', path: 'ssh', target_version: '1.1.3-ipset' });
    expect(job.output).toContain('bundle.tar.gz: OK');
    expect(job.output).toContain('installed ssh-monitor 1.1.3-ipset');
    expect(job.output).toContain('SAC-AGENT-VERSION: SSH_MONITOR_VERSION="1.1.3-ipset"');
    expect(installs()).toEqual(['0 1.1.3-ipset']);
    expect(restarts()).toEqual(['restarted']);
    // The upload folder is removed whatever happened.
    expect(readdirSync('/tmp').filter((f) => f.startsWith('sac-agent-update.'))).toEqual([]);

    expect((await hostOf('LNX-SILENT')).outdated).toBe(true);
    await sendFrom('LNX-SILENT', 'agent.heartbeat', '1.1.3-ipset');
    expect(await hostOf('LNX-SILENT')).toMatchObject({ agent_version: '1.1.3-ipset', outdated: false });
  });

  it('pushes at once when an admin asks; a monitor may not', async () => {
    await pinSshdTo('LNX-MANUAL');
    await api(sac, 'POST', `/api/v1/hosts/${hostIds['LNX-MANUAL']}/agent-update`, { token });
    const job = await jobOf('LNX-MANUAL');
    const monitor = await userToken(sac, 'monitor');
    expect((await api(sac, 'POST', `/api/v1/agent-updates/${job.id}/push`, { token: monitor })).status).toBe(403);
    const pushed = await api(sac, 'POST', `/api/v1/agent-updates/${job.id}/push`, { token });
    expect(pushed.status).toBe(200);
    expect(pushed.body).toMatchObject({ state: 'success', path: 'ssh' });
    expect(installs()).toHaveLength(2);
    expect((await api(sac, 'POST', `/api/v1/agent-updates/${job.id}/push`, { token })).status).toBe(409);
  });

  it('a bundle whose hash does not match is never unpacked: the job fails with the output', async () => {
    await pinSshdTo('LNX-TAMPERED');
    await api(sac, 'POST', `/api/v1/hosts/${hostIds['LNX-TAMPERED']}/agent-update`, { token });
    // Same size, other bytes: the copy SAC uploads no longer has the recorded SHA-256.
    const bundle = path.join(sac.dataDir, 'agent-bundles', 'ssh-monitor-1.1.3-ipset.tar.gz');
    writeFileSync(bundle, Buffer.alloc(readFileSync(bundle).length, 0x41));
    const pushed = await api(sac, 'POST', `/api/v1/agent-updates/${(await jobOf('LNX-TAMPERED')).id}/push`, { token });
    expect(pushed.body.state).toBe('failed');
    expect(pushed.body.output).toMatch(/exited with 1/);
    expect(pushed.body.output).toMatch(/FAILED/);
    expect(installs()).toHaveLength(2);
    rmSync(bundle);
  });

  it('a user without sudo leaves the job failed with the reason, and it is not retried', async () => {
    await api(sac, 'PATCH', '/api/v1/settings/ssh_admin', { token, body: { username: sshd.plain.name, private_key: sshd.clientKey } });
    await pinSshdTo('LNX-NOSUDO');
    await api(sac, 'POST', `/api/v1/hosts/${hostIds['LNX-NOSUDO']}/agent-update`, { token });
    clock.advance(31 * 60_000);
    await waitFor('the failed push', async () => (await jobOf('LNX-NOSUDO')).state === 'failed', 30_000);
    const job = await jobOf('LNX-NOSUDO');
    expect(job.path).toBe('ssh');
    expect(job.output).toMatch(/sudo/);
    expect(installs()).toHaveLength(2);
    clock.advance(31 * 60_000);
    await aFullJobRun('agent_update_fallback', { url: sac.url, token });
    expect((await jobOf('LNX-NOSUDO')).updated_at).toBe(job.updated_at);
    const text = sac.logs.join('\n');
    expect(text).not.toContain(sshd.clientKey.split('\n')[1]);
  });
});
