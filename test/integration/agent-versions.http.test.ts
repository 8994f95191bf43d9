import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';

const SSH_MONITOR_SCRIPT = (version: string) => `#!/bin/bash\n# ssh-monitor\nSSH_MONITOR_VERSION="${version}"\nmain() { :; }\n`;

describe.each(STORE_KINDS)('agent versions from git on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  let repos: GitReposPeer;
  let rdpCommit: string;

  beforeAll(async () => {
    repos = await startGitRepos();
    repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'Write-Host 1' }, 'v2.1.7-SAC');
    rdpCommit = repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
    repos.commit('rdp-login-monitor', { 'README.md': 'work in progress' }, 'nightly');
    repos.commit('ssh-monitor', { 'ssh-monitor': SSH_MONITOR_SCRIPT('1.1.2-ipset') });
    sac = await startTestSac(kind);
    token = await adminToken(sac);
  });
  afterAll(async () => {
    await sac?.close();
    await repos?.close();
  });

  it('reads the newest release tag over git:// and a version file over file://, and stores both', async () => {
    const saved = await api(sac, 'PATCH', '/api/v1/settings/git_repos', {
      token,
      body: {
        repos: [
          { product: 'rdp-login-monitor', url: repos.gitUrl('rdp-login-monitor') },
          { product: 'ssh-monitor', url: repos.fileUrl('ssh-monitor'), version_from: 'file' },
        ],
      },
    });
    expect(saved.status).toBe(200);
    const before = await api(sac, 'GET', '/api/v1/agents/versions', { token });
    expect(before.body.versions).toEqual([
      { product: 'rdp-login-monitor', latest_version: null, commit: null, checked_at: null, error: null, error_reason: null },
      { product: 'ssh-monitor', latest_version: null, commit: null, checked_at: null, error: null, error_reason: null },
    ]);
    const refreshed = await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.versions).toMatchObject([
      { product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: rdpCommit, error: null },
      { product: 'ssh-monitor', latest_version: '1.1.2-ipset', error: null },
    ]);
    const monitor = await api(sac, 'GET', '/api/v1/agents/versions', { token: await userToken(sac, 'monitor') });
    expect(monitor.body.versions[0].latest_version).toBe('2.1.8-SAC');
  });

  it('fetches new commits into its mirror on the next read', async () => {
    repos.commit('ssh-monitor', { 'ssh-monitor': SSH_MONITOR_SCRIPT('1.1.3-ipset') });
    const refreshed = await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    expect(refreshed.body.versions[1]).toMatchObject({ product: 'ssh-monitor', latest_version: '1.1.3-ipset' });
  });

  it('keeps the last good version when a repository becomes unreachable, and says why', async () => {
    await api(sac, 'PATCH', '/api/v1/settings/git_repos', {
      token,
      body: { repos: [{ product: 'rdp-login-monitor', url: 'git://127.0.0.1:1/rdp-login-monitor.git' }] },
    });
    const refreshed = await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
    expect(refreshed.body.versions[0]).toMatchObject({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: rdpCommit });
    expect(refreshed.body.versions[0].error).toMatch(/Cannot fetch the repository/);
  });

  it('tests a repository without touching the stored versions: good, missing version, bad URL', async () => {
    await api(sac, 'PATCH', '/api/v1/settings/git_repos', {
      token,
      body: {
        repos: [
          { product: 'rdp-login-monitor', url: repos.fileUrl('rdp-login-monitor'), version_from: 'file' },
          { product: 'ssh-monitor', url: repos.gitUrl('ssh-monitor') },
          { product: 'other', url: 'ext::sh -c touch% /tmp/pwned' },
        ],
      },
    });
    const good = await api(sac, 'POST', '/api/v1/settings/git_repos/test', { token, body: { product: 'rdp-login-monitor' } });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ ok: true, product: 'rdp-login-monitor', latest_version: '2.1.8-SAC' });
    const noTag = await api(sac, 'POST', '/api/v1/settings/git_repos/test', { token, body: { product: 'ssh-monitor' } });
    expect(noTag.body).toMatchObject({ ok: false, latest_version: null });
    expect(noTag.body.detail).toMatch(/No release tag/);
    const bad = await api(sac, 'POST', '/api/v1/settings/git_repos/test', { token, body: { product: 'other' } });
    expect(bad.body).toMatchObject({ ok: false });
    expect(bad.body.detail).toMatch(/must be http\(s\), ssh, git, file/);
    const unknown = await api(sac, 'POST', '/api/v1/settings/git_repos/test', { token, body: { product: 'nope' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('git/not_configured');
    const audit = await api(sac, 'GET', '/api/v1/audit?action=settings.git_test', { token });
    expect(audit.body.entries.map((e: { outcome: string }) => e.outcome)).toEqual(expect.arrayContaining(['ok', 'failed']));
  });

  it('lets only admins refresh and test', async () => {
    const monitor = await userToken(sac, 'monitor');
    expect((await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token: monitor })).status).toBe(403);
    expect((await api(sac, 'POST', '/api/v1/settings/git_repos/test', { token: monitor, body: { product: 'ssh-monitor' } })).status).toBe(403);
    expect((await api(sac, 'GET', '/api/v1/agents/versions')).status).toBe(401);
  });
});
