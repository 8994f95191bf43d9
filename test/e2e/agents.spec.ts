import { expect, test } from '@playwright/test';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const MONITOR = { username: 'duty', password: 'Quiet-evening-shift-2026' };

let sac: E2eSac;
let repos: GitReposPeer;
let admin: string;
const ids: Record<string, string> = {};

/** Sends an agent event from one of the test hosts. */
function agentEvent(hostname: string, type: string, version: string, details: Record<string, unknown> = {}) {
  const linux = hostname.startsWith('LNX');
  return sac.ingest({
    type,
    category: 'agent',
    severity: 'info',
    title: type,
    summary: type,
    source: { product: linux ? 'ssh-monitor' : 'rdp-login-monitor', product_version: version, agent_instance_id: `agent-${hostname}` },
    host: { hostname, os_family: linux ? 'linux' : 'windows', display_name: hostname, ipv4: '10.0.0.40' },
    details: { generated_by: 'agent', ...details },
  });
}

test.beforeAll(async () => {
  repos = await startGitRepos();
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'param($SourceShareRoot)' }, 'v2.1.7-SAC');
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
  repos.commit('ssh-monitor', { 'ssh-monitor': '#!/bin/bash\nSSH_MONITOR_VERSION="1.1.3-ipset"\n' });
  sac = await startE2eSac();
  admin = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { ...MONITOR, role: 'monitor' } })).status).toBe(201);
  const gitRepos = {
    repos: [
      { product: 'rdp-login-monitor', url: repos.fileUrl('rdp-login-monitor') },
      { product: 'ssh-monitor', url: repos.fileUrl('ssh-monitor'), version_from: 'file' },
      // A repository that is not there: its error shows in the panel.
      { product: 'legacy-agent', url: repos.fileUrl('legacy-agent') },
    ],
  };
  expect((await sac.api('PATCH', '/api/v1/settings/git_repos', { token: admin, body: gitRepos })).status).toBe(200);
  expect((await sac.api('PATCH', '/api/v1/settings/agent_updates', { token: admin, body: { enabled: true, fallback_after_minutes: 0 } })).status).toBe(200);
  for (const name of ['WS-01', 'WS-02']) await agentEvent(name, 'agent.heartbeat', '2.1.7-SAC');
  await agentEvent('LNX-01', 'agent.heartbeat', '1.1.2-ipset');
  for (const h of (await sac.api('GET', '/api/v1/hosts', { token: admin })).body.items) ids[h.hostname] = h.id;
  expect((await sac.api('POST', '/api/v1/agents/versions/refresh', { token: admin })).status).toBe(200);
});
test.afterAll(async () => {
  await sac?.close();
  await repos?.close();
});

test('an admin checks the versions, is offered a rollout per product, follows the update jobs live and reads a failed push', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/agents/i).click();
  const panel = page.getByTestId('agent-versions');
  await panel.getByTestId('versions-check').click();
  await expect(page.getByText('Versions read from git')).toBeVisible();
  const rdp = panel.locator('[data-product="rdp-login-monitor"]');
  await expect(rdp.getByTestId('version-latest')).toHaveText('2.1.8-SAC');
  await expect(panel.locator('[data-product="ssh-monitor"]').getByTestId('version-latest')).toHaveText('1.1.3-ipset');
  await expect(panel.locator('[data-product="legacy-agent"]').getByTestId('version-error')).toBeVisible();

  await expect(rdp.getByTestId('start-rollout')).toHaveText('Start rollout (2)');
  await expect(panel.locator('[data-product="legacy-agent"]').getByTestId('start-rollout')).toHaveCount(0);
  // Two single-host updates (rollouts have their own spec): the page follows them from the stream.
  for (const name of ['WS-01', 'WS-02']) expect((await sac.api('POST', `/api/v1/hosts/${ids[name]}/agent-update`, { token: admin })).status).toBe(201);
  await expect(rdp.getByTestId('update-progress')).toHaveText('0 of 2 done · 0 failed · 2 running');
  const jobs = page.getByTestId('jobs-table');
  await expect(jobs.locator('tr[data-state="pending"]')).toHaveCount(2);

  // The agent of WS-01 reports its update: the page follows from the stream, without reloading.
  await agentEvent('WS-01', 'agent.update.started', '2.1.7-SAC');
  await agentEvent('WS-01', 'agent.update.success', '2.1.8-SAC');
  await expect(rdp.getByTestId('update-progress')).toHaveText('1 of 2 done · 0 failed · 1 running');
  await expect(jobs.locator('tr[data-state="success"]')).toHaveCount(1);

  // WS-02 stays silent; pushing it fails here (no SAC_PUBLIC_URL): the job is failed, its output readable.
  const silent = jobs.locator('tr[data-state="pending"]');
  await silent.getByTestId('job-push').click();
  await expect(page.getByText('Pushed: failed')).toBeVisible();
  await expect(rdp.getByTestId('update-progress')).toHaveText('1 of 2 done · 1 failed · 0 running');
  await expect(page.getByTestId('job-output')).toContainText('SAC_PUBLIC_URL is not set');
  await app.screenshotBothThemes('agents-page');

  await page.getByTestId('jobs-state').selectOption('success');
  await expect(jobs.locator('tbody tr')).toHaveCount(1);
  await page.getByTestId('jobs-state').selectOption('');
  await page.getByTestId('jobs-host').selectOption({ label: 'WS-02' });
  await expect(jobs.locator('tbody tr[data-job]')).toHaveCount(1);
  await expect(jobs.locator('tbody tr[data-job]')).toHaveAttribute('data-state', 'failed');
});

test('on the host page an admin starts the update, sees it move live, edits the desired configuration, and the badge goes', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open(`/hosts/${ids['LNX-01']}`);
  const detail = page.getByTestId('host-detail');
  await expect(detail.getByTestId('agent-version-status')).toHaveText('outdated');
  const section = page.getByTestId('agent-update');
  await section.getByTestId('update-agent').click();
  await expect(page.getByText('Update to 1.1.3-ipset started')).toBeVisible();
  await expect(section.getByTestId('agent-update-job')).toHaveAttribute('data-state', 'pending');
  await expect(section.getByTestId('update-agent')).toHaveCount(0);
  await agentEvent('LNX-01', 'agent.update.started', '1.1.2-ipset');
  await expect(section.getByTestId('agent-update-job')).toHaveAttribute('data-state', 'started');

  const editor = section.getByTestId('agent-config');
  await expect(editor).toHaveValue('{}');
  await editor.fill('{"HeartbeatMinutes": 5,');
  await expect(section.getByTestId('agent-config-error')).toHaveText('Not valid JSON');
  await expect(section.getByTestId('agent-config-save')).toBeDisabled();
  await editor.fill('["not", "an object"]');
  await expect(section.getByTestId('agent-config-error')).toHaveText('Must be a JSON object');
  await editor.fill('{"HeartbeatMinutes": 5, "Paths": ["/var/log/auth.log"]}');
  await expect(section.getByTestId('agent-config-error')).toHaveCount(0);
  await section.getByTestId('agent-config-save').click();
  await expect(page.getByText('Agent configuration saved')).toBeVisible();
  expect((await sac.api('GET', `/api/v1/hosts/${ids['LNX-01']}/agent-config`, { token: admin })).body.config).toEqual({ HeartbeatMinutes: 5, Paths: ['/var/log/auth.log'] });
  await section.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('agents-host-panel');

  await agentEvent('LNX-01', 'agent.update.success', '1.1.3-ipset');
  await expect(section.getByTestId('agent-update-job')).toHaveAttribute('data-state', 'success');
  await expect(detail.getByTestId('agent-version-status')).toHaveText('up to date');
});

test('a monitor sees versions, jobs and the configuration read-only', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login(MONITOR.username, MONITOR.password);
  await app.open('/agents');
  await expect(page.getByTestId('agent-versions').locator('[data-product="rdp-login-monitor"]').getByTestId('version-latest')).toHaveText('2.1.8-SAC');
  await expect(page.getByTestId('jobs-table').locator('tbody tr[data-job]')).toHaveCount(3);
  await expect(page.getByTestId('versions-check')).toHaveCount(0);
  await expect(page.getByTestId('start-rollout')).toHaveCount(0);
  await expect(page.getByTestId('job-push')).toHaveCount(0);
  await app.open(`/hosts/${ids['WS-02']}`);
  const section = page.getByTestId('agent-update');
  await expect(section.getByTestId('agent-update-job')).toHaveAttribute('data-state', 'failed');
  await expect(section.getByTestId('update-agent')).toHaveCount(0);
  await expect(section.getByTestId('agent-config')).toHaveAttribute('readonly', '');
  await expect(section.getByTestId('agent-config-save')).toHaveCount(0);
});

test('the Agents page is usable at 390 px, in Russian too', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/agents');
  await expect(page.getByTestId('agent-versions').locator('[data-product="rdp-login-monitor"]').getByTestId('version-latest')).toHaveText('2.1.8-SAC');
  expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  await app.screenshotBothThemes('agents-390');
  await page.getByTestId('language').first().selectOption('ru');
  await expect(page.getByRole('heading', { name: 'Версии и обновления агентов' })).toBeVisible();
  await expect(page.getByTestId('start-rollout').first()).toHaveText('Начать развёртывание (1)');
  await app.screenshot('agents-390-ru');
});
