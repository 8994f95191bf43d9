import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { api } from './auth.js';
import type { TestSac } from './daemon.js';

/**
 * A git peer whose rdp-login-monitor has 2.1.7-SAC and 2.1.8-SAC (the latest); SAC reads it, with
 * agent updates enabled one host at a time.
 */
export async function startRdpUpdates(sac: TestSac, token: string): Promise<GitReposPeer> {
  const repos = await startGitRepos();
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'Write-Host deploy' }, 'v2.1.7-SAC');
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
  await api(sac, 'PATCH', '/api/v1/settings/git_repos', { token, body: { repos: [{ product: 'rdp-login-monitor', url: repos.fileUrl('rdp-login-monitor') }] } });
  await api(sac, 'PATCH', '/api/v1/settings/agent_updates', { token, body: { enabled: true, max_parallel: 1 } });
  await api(sac, 'POST', '/api/v1/agents/versions/refresh', { token });
  return repos;
}
