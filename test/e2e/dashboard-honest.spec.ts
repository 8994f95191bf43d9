import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, agentTime } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

const sizes = [
  { name: '1440', width: 1440, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;

async function shotsAtBothSizes(page: Page, app: ConsolePage, name: string) {
  for (const s of sizes) {
    await page.setViewportSize({ width: s.width, height: s.height });
    await app.screenshotBothThemes(`${name}-${s.name}`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

test.beforeAll(async () => {
  // One host on an older agent beside the fixtures' hosts; no git repository is configured.
  await sac.ingest({
    occurred_at: agentTime(1),
    type: 'agent.heartbeat',
    category: 'agent',
    severity: 'info',
    title: 'heartbeat',
    source: { product: 'rdp-login-monitor', product_version: '2.1.5-SAC', agent_instance_id: undefined },
    host: { hostname: 'WS-OLD', display_name: 'WS-OLD', os_family: 'windows', ipv4: '10.0.0.61' },
    details: { generated_by: 'agent' },
  });
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('PATCH', '/api/v1/settings/hidden_types', { token, body: { types: ['agent.heartbeat'] } })).status).toBe(200);
});

test('with a hidden type every dashboard figure leaves it out, in both languages', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  const events = Number(await page.getByTestId('stat-events').locator('.value').textContent());
  const topHosts = (await page.getByTestId('top-hosts').locator('.bar-n').allTextContents()).map(Number);
  expect(topHosts.reduce((a, b) => a + b, 0)).toBe(events);
  await expect(page.getByTestId('stat-heartbeats').locator('.value')).toHaveText('hidden type');
  await expect(page.getByTestId('stat-heartbeats')).toHaveAttribute('title', /left out of every event count/);
  await expect(page.getByTestId('dash-hidden')).toContainText('agent.heartbeat');
  await shotsAtBothSizes(page, app, 'dashboard-hidden-type');

  await page.getByTestId('language').selectOption('ru');
  await expect(page.getByTestId('stat-heartbeats').locator('.value')).toHaveText('тип скрыт');
  await app.screenshotBothThemes('dashboard-hidden-type-ru-1440');
  await page.getByTestId('language').selectOption('en');
});

test('hosts and agents say what is known of each agent version', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/hosts/i).click();
  const old = page.getByTestId('hosts-table').getByRole('row').filter({ hasText: 'WS-OLD' });
  await expect(old.getByTestId('agent-version-status')).toHaveText('outdated');
  await expect(old.getByTestId('agent-version-status')).toHaveAttribute('title', /Older than 2\.1\.7-SAC, the newest version seen in the fleet/);
  await expect(page.getByTestId('hosts-table').getByText('up to date')).toHaveCount(0);
  await expect(page.getByTestId('hosts-table').getByText('latest unknown').first()).toBeVisible();
  await shotsAtBothSizes(page, app, 'hosts-agent-version');

  await old.click();
  await expect(page.getByTestId('host-detail')).toContainText('Older than 2.1.7-SAC, the newest version seen in the fleet.');
  await expect(page.getByTestId('host-detail')).not.toContainText('The agent is up to date.');
  await app.screenshotBothThemes('host-detail-agent-version-1440');

  await app.nav(/agents/i).click();
  await expect(page.getByTestId('agent-fleet')).toContainText('newest seen 2.1.7-SAC');
  await expect(page.getByTestId('agent-fleet')).toContainText('Latest version unknown — configure a repository');
  await shotsAtBothSizes(page, app, 'agents-fleet');
});
