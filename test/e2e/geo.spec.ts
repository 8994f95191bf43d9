import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { agentTime } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

/** Failed RDP logins from public addresses whose countries the shipped database knows. */
const SOURCES: [ip: string, times: number][] = [
  ['45.155.205.1', 6], // RU
  ['185.220.101.1', 4], // DE
  ['114.114.114.114', 3], // CN
  ['200.160.2.3', 2], // BR
  ['8.8.8.8', 1], // US
];

test('failed logins by source: world map, top countries and networks, flag and network in the event list and detail', async ({ page }) => {
  for (const [ip, times] of SOURCES) {
    for (let i = 0; i < times; i++) {
      await sac.ingest({ occurred_at: agentTime(10 + i), type: 'rdp.login.failed', title: `RDP login failed from ${ip}`, details: { user: 'administrator', ip_address: ip, event_id_windows: 4625, logon_type: 10, generated_by: 'agent' } });
    }
  }
  const app = new ConsolePage(page, sac.url);
  await app.login();
  const tile = page.getByTestId('failed-login-sources');
  await expect(tile).toContainText('Russia');
  await expect(tile.getByRole('link', { name: /Germany/ })).toBeVisible();
  await expect(page.getByTestId('failed-login-map')).toBeVisible();
  await expect(page.getByTestId('geo-databases')).toContainText(/Country database: shipped/);
  await tile.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('dashboard-geo-1440');

  await tile.getByRole('link', { name: /Russia/ }).click();
  await expect(page).toHaveURL(/country=RU/);
  const rows = page.locator('table.data tbody tr');
  await expect(rows).toHaveCount(6);
  await expect(page.getByTestId('source-geo').first()).toContainText('RU');
  await rows.first().click();
  await expect(page.getByTestId('pivot-country')).toBeVisible();
  await app.screenshot('events-geo-1440');

  await page.setViewportSize({ width: 390, height: 844 });
  await app.open('/');
  await expect(page.getByTestId('failed-login-map')).toBeVisible();
  await page.getByTestId('failed-login-sources').scrollIntoViewIfNeeded();
  await app.screenshot('dashboard-geo-390');
});
