import { expect, test, type Page } from '@playwright/test';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const MONITOR = { username: 'duty', password: 'Quiet-evening-shift-2026' };
const HOSTS = ['WS-01', 'WS-02', 'WS-03', 'WS-04', 'WS-05'];

let sac: E2eSac;
let repos: GitReposPeer;
let admin: string;
const ids: Record<string, string> = {};

/** An agent event from one of the Windows test hosts, reporting `version`. */
function agentEvent(hostname: string, type: string, version: string) {
  return sac.ingest({
    type,
    category: 'agent',
    severity: type.endsWith('failed') ? 'high' : 'info',
    title: type,
    summary: type,
    source: { product: 'rdp-login-monitor', product_version: version, agent_instance_id: `agent-${hostname}` },
    host: { hostname, os_family: 'windows', display_name: hostname, ipv4: '10.0.0.50' },
    details: { generated_by: 'agent', ...(type.endsWith('failed') ? { error: 'installer exited with code 1603' } : {}) },
  });
}
/** The host's agent takes its update job and reports the new version (a success), or fails it. */
async function report(hostname: string, outcome: 'success' | 'failed') {
  await agentEvent(hostname, 'agent.update.started', '2.1.7-SAC');
  await agentEvent(hostname, `agent.update.${outcome}`, outcome === 'success' ? '2.1.8-SAC' : '2.1.7-SAC');
  if (outcome === 'success') await agentEvent(hostname, 'agent.heartbeat', '2.1.8-SAC');
}

test.beforeAll(async () => {
  repos = await startGitRepos();
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.7-SAC\r\n', 'Deploy-LoginMonitor.ps1': 'param($SourceShareRoot)' }, 'v2.1.7-SAC');
  repos.commit('rdp-login-monitor', { 'version.txt': '2.1.8-SAC\r\n' }, 'v2.1.8-SAC');
  // The leader moves rollouts on this beat: fast, so a ring follows its hosts' reports at once.
  sac = await startE2eSac({ SAC_AGENT_VERSION_CHECK_SECONDS: '0.2' });
  admin = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { ...MONITOR, role: 'monitor' } })).status).toBe(201);
  const gitRepos = { repos: [{ product: 'rdp-login-monitor', url: repos.fileUrl('rdp-login-monitor') }] };
  expect((await sac.api('PATCH', '/api/v1/settings/git_repos', { token: admin, body: gitRepos })).status).toBe(200);
  expect((await sac.api('PATCH', '/api/v1/settings/agent_updates', { token: admin, body: { enabled: true, fallback_after_minutes: 0 } })).status).toBe(200);
  for (const name of HOSTS) await agentEvent(name, 'agent.heartbeat', '2.1.7-SAC');
  for (const h of (await sac.api('GET', '/api/v1/hosts', { token: admin })).body.items) ids[h.hostname] = h.id;
  expect((await sac.api('POST', '/api/v1/agents/versions/refresh', { token: admin })).status).toBe(200);
});
test.afterAll(async () => {
  await sac?.close();
  await repos?.close();
});

/** The dot of a host in the rings picture. */
const dot = (page: Page, hostname: string) => page.getByTestId('rollout-rings').locator(`circle[data-host="${hostname}"]`);
const ring = (page: Page, index: number) => page.getByTestId('ring-list').locator(`li[data-ring="${index}"]`);

test('an admin starts a rollout from the dialog, follows the rings live, pauses, sees it halt by itself, aborts and rolls a host back', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/agents/i).click();
  const rdp = page.getByTestId('agent-versions').locator('[data-product="rdp-login-monitor"]');
  await expect(rdp.getByTestId('start-rollout')).toHaveText('Start rollout (5)');
  await rdp.getByTestId('start-rollout').click();

  const dialog = page.getByRole('dialog', { name: 'Start rollout' });
  await expect(dialog.getByTestId('rollout-product')).toHaveValue('rdp-login-monitor');
  await expect(dialog.getByTestId('rollout-version')).toHaveAttribute('placeholder', 'latest (2.1.8-SAC)');
  await expect(dialog.getByTestId('rollout-selected')).toHaveText('Selected hosts: 5');
  // The defaults: 25 / 50 / 100 %, 30 minutes each; a wave that does not grow is refused where it is typed.
  await expect(dialog.getByTestId('wave-percent')).toHaveCount(3);
  await expect(dialog.getByTestId('wave-soak').first()).toHaveValue('30');
  await dialog.getByTestId('wave-percent').nth(1).fill('20');
  await dialog.getByTestId('wave-percent').nth(1).blur();
  await expect(dialog.locator('[data-wave="2"]').getByTestId('wave-error')).toHaveText('Larger than the wave before');
  await dialog.getByTestId('wave-percent').nth(1).fill('50');
  await expect(dialog.getByTestId('wave-error')).toHaveCount(0);
  // By groups with none picked: refused on start, nothing sent.
  await dialog.getByTestId('rollout-by-groups').check();
  await dialog.getByTestId('rollout-submit').click();
  await expect(dialog.getByText('Pick at least one group')).toBeVisible();
  await dialog.getByTestId('rollout-all-outdated').check();
  // WS-01 is the canary; no soak anywhere, so each ring starts as soon as the one before passes.
  await dialog.getByTestId('rollout-canaries').getByLabel('WS-01').check();
  await dialog.getByTestId('rollout-canary-soak').fill('0');
  for (const soak of await dialog.getByTestId('wave-soak').all()) await soak.fill('0');
  await app.screenshot('rollouts-start-dialog');
  await dialog.getByTestId('rollout-submit').click();

  await expect(page.getByText('Rollout of rdp-login-monitor started')).toBeVisible();
  await expect(page).toHaveURL(/\/agents\/rollouts\/[^/]+$/);
  const detail = page.getByTestId('rollout-detail');
  await expect(detail.getByTestId('rollout-state')).toHaveText('running');
  await expect(ring(page, 0)).toHaveAttribute('data-ring-state', 'updating');
  await expect(dot(page, 'WS-01')).toHaveAttribute('data-state', 'updating');
  await expect(dot(page, 'WS-02')).toHaveAttribute('data-state', 'waiting');

  // Pause and resume while the canary runs.
  await detail.getByTestId('rollout-pause').click();
  await expect(detail.getByTestId('rollout-state')).toHaveText('paused');
  await expect(detail.getByTestId('rollout-pause')).toHaveCount(0);
  await detail.getByTestId('rollout-resume').click();
  await expect(detail.getByTestId('rollout-state')).toHaveText('running');

  // The canary reports the new version: the picture moves without a reload, and wave 1 starts.
  await report('WS-01', 'success');
  await expect(dot(page, 'WS-01')).toHaveAttribute('data-state', 'updated');
  await expect(ring(page, 0)).toHaveAttribute('data-ring-state', 'passed');
  await expect(ring(page, 1)).toHaveAttribute('data-ring-state', 'updating');
  await expect(dot(page, 'WS-02')).toHaveAttribute('data-state', 'updating');
  await expect(detail.getByTestId('rollout-hosts').locator('tr[data-host="WS-01"]')).toContainText('2.1.8-SAC');
  await app.screenshotBothThemes('rollouts-running');

  // WS-02 fails its update: the health gate halts the rollout by itself and says why.
  await report('WS-02', 'failed');
  await expect(detail.getByTestId('rollout-state')).toHaveText('halted');
  await expect(detail.getByTestId('rollout-halt')).toContainText('WS-02');
  await expect(ring(page, 1)).toHaveAttribute('data-ring-state', 'failed');
  await expect(dot(page, 'WS-02')).toHaveAttribute('data-state', 'failed');
  await expect(dot(page, 'WS-03')).toHaveAttribute('data-state', 'waiting');
  await app.screenshotBothThemes('rollouts-halted');

  // Abort asks first; a cancel leaves it halted.
  await detail.getByTestId('rollout-abort').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await expect(detail.getByTestId('rollout-state')).toHaveText('halted');
  await detail.getByTestId('rollout-abort').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Abort' }).click();
  await expect(detail.getByTestId('rollout-state')).toHaveText('aborted');
  await expect(detail.getByTestId('rollout-resume')).toHaveCount(0);

  // Roll the canary back to 2.1.7-SAC (confirmed): it is marked rolled back, its job goes out.
  await detail.getByTestId('rollout-hosts').locator('tr[data-host="WS-01"]').getByTestId('host-rollback').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Roll back' }).click();
  await expect(page.getByText('Rollback started')).toBeVisible();
  await expect(dot(page, 'WS-01')).toHaveAttribute('data-state', 'rolled_back');
  const { jobs } = (await sac.api('GET', `/api/v1/agent-updates?host_id=${ids['WS-01']}`, { token: admin })).body;
  expect(jobs[0]).toMatchObject({ from_version: '2.1.8-SAC', target_version: '2.1.7-SAC', state: 'pending' });

  // The list shows it with its progress.
  await page.getByRole('link', { name: '← All rollouts' }).click();
  const row = page.getByTestId('rollouts-table').locator('tr[data-rollout]');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-state', 'aborted');
  await expect(row).toContainText('2.1.8-SAC');
});

test('pins: an admin pins a host below the latest version and removes the pin', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/agents/rollouts');
  const pins = page.getByTestId('agent-pins');
  await pins.getByTestId('pin-product').selectOption('rdp-login-monitor');
  await pins.getByTestId('pin-kind').selectOption('host');
  await pins.getByTestId('pin-target').selectOption({ label: 'WS-05' });
  await pins.getByTestId('pin-version').fill('2.1.7-SAC');
  await pins.getByTestId('pin-add').click();
  await expect(page.getByText('Pin saved')).toBeVisible();
  const row = pins.getByTestId('pins-table').locator('tr[data-pin]');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('WS-05');
  await expect(row).toContainText('2.1.7-SAC');
  await pins.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('rollouts-pins');
  await row.getByTestId('pin-remove').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText('Pin removed')).toBeVisible();
  await expect(row).toHaveCount(0);
});

test('a monitor sees the rollout and the pins read-only', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login(MONITOR.username, MONITOR.password);
  await app.open('/agents/rollouts');
  await expect(page.getByText('Read only: administrators start and steer rollouts.')).toBeVisible();
  await expect(app.nav(/agents/i)).toHaveClass(/router-link-active/);
  await expect(page.getByTestId('tab-rollouts')).toHaveClass(/active/);
  await expect(page.getByTestId('rollout-start')).toHaveCount(0);
  await expect(page.getByTestId('pin-form')).toHaveCount(0);
  await page.getByTestId('rollouts-table').locator('tr[data-rollout]').click();
  const detail = page.getByTestId('rollout-detail');
  await expect(detail.getByTestId('rollout-state')).toHaveText('aborted');
  await expect(dot(page, 'WS-02')).toHaveAttribute('data-state', 'failed');
  await expect(detail.getByTestId('host-rollback')).toHaveCount(0);
  await expect(detail.getByTestId('ring-rollback')).toHaveCount(0);
});

test('the rollout at 390 px and in Russian', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/agents/rollouts');
  await page.getByTestId('rollouts-table').locator('tr[data-rollout]').click();
  await expect(page.getByTestId('rollout-halt')).toContainText('WS-02');
  await app.screenshot('rollouts-detail-1440');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId('rollout-rings')).toBeVisible();
  expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  await app.screenshotBothThemes('rollouts-390');
  await page.getByTestId('language').first().selectOption('ru');
  await expect(page.getByRole('heading', { name: 'Развёртывания агентов' })).toBeVisible();
  await expect(page.getByTestId('rollout-state')).toHaveText('прервано');
  await app.screenshotBothThemes('rollouts-390-ru');
  await page.getByTestId('rollout-start').click();
  await expect(page.getByRole('dialog', { name: 'Начать развёртывание' })).toBeVisible();
  await app.screenshot('rollouts-start-390-ru');
  await page.keyboard.press('Escape');
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.screenshotBothThemes('rollouts-1440-ru');
  await page.getByTestId('language').first().selectOption('en');
});

test('under the approval policy, starting a rollout becomes a request for a second person', async ({ page }) => {
  expect((await sac.api('PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['rollout_start'] } })).status).toBe(200);
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/agents/rollouts');
  await page.getByTestId('rollout-start').click();
  const dialog = page.getByRole('dialog', { name: 'Start rollout' });
  await expect(dialog.getByTestId('rollout-selected')).toHaveText('Selected hosts: 4');
  await dialog.getByTestId('rollout-submit').click();
  const ask = page.getByRole('dialog', { name: 'Approval needed' });
  await expect(ask.getByTestId('approval-needed')).toContainText('Starting this staged rollout needs a second person’s approval');
  await expect(dialog).toHaveCount(0);
  await ask.getByTestId('approval-reason').fill('2.1.8-SAC fixes the RDP parser crash');
  await ask.getByRole('button', { name: 'Request approval' }).click();
  await expect(page.getByText('Request sent: another person must approve it')).toBeVisible();
  await expect(page.getByTestId('rollouts-table').locator('tr[data-rollout]')).toHaveCount(1);
  const { items } = (await sac.api('GET', '/api/v1/approvals?state=pending', { token: admin })).body;
  expect(items).toEqual([expect.objectContaining({ action: 'rollout_start', requested_by: 'admin' })]);
});
