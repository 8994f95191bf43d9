import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { startWebhookPeer } from './support/peer.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';
import { seedFixtures } from './support/seed.js';

let sac: E2eSac;
let peer: Awaited<ReturnType<typeof startWebhookPeer>>;
test.beforeAll(async () => {
  sac = await startE2eSac();
  peer = await startWebhookPeer();
  // A configured channel, so the seeded high events and problems fill the delivery log.
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const set = await sac.api('POST', '/trpc/settings.update', { token, body: { category: 'webhook', values: { url: peer.url } } });
  expect(set.status).toBe(200);
  await seedFixtures(sac);
});
test.afterAll(async () => {
  await sac?.close();
  await peer?.close();
});

test('users: create a monitor, shown with its role', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/users/i).click();
  await page.getByRole('button', { name: /new user/i }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Username').fill('dayshift');
  await dialog.getByLabel('Display name').fill('Day shift');
  await dialog.getByLabel('Password').fill('Sunny-morning-watch-77');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('tr[data-user="dayshift"]')).toContainText('Monitor');
  await app.screenshotBothThemes('users');
});

test('API keys: a new key is shown once and works for ingest', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/api keys/i).click();
  await page.getByRole('button', { name: /new key/i }).click();
  await page.getByRole('dialog').getByLabel('Label').fill('RDS farm');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  const key = (await page.getByTestId('new-api-key').textContent())!.trim();
  expect(key).toMatch(/^sac_/);
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
  await expect(page.locator('tbody')).toContainText('RDS farm');
  await expect(page.locator('body')).not.toContainText(key);
  const res = await fetch(`${sac.url}/api/v1/events`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(422);
  await app.screenshotBothThemes('api-keys');
});

test('audit log, delivery log and daily reports render with data', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/audit log/i).click();
  await expect(page.getByTestId('audit-table')).toContainText('admin');
  await app.screenshotBothThemes('audit');

  await app.nav(/daily reports/i).click();
  await page.getByRole('button', { name: /generate now/i }).click();
  // Start-up may already have produced today's scheduled report; the manual one is added to it.
  await expect(page.getByTestId('reports-table').locator('tbody tr').filter({ hasText: 'manual' })).toHaveCount(1);
  await expect(page.frameLocator('[data-testid="report-frame"]').locator('body')).toContainText(/RDS01|web-01/);
  await app.screenshotBothThemes('reports');

  await app.nav(/deliveries/i).click();
  await expect(page.locator('h1')).toHaveText('Notification deliveries');
  await expect(page.getByTestId('deliveries-table').locator('tbody tr').first()).toContainText('webhook');
  await app.screenshotBothThemes('deliveries');
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('GET', '/api/v1/auth/me', { token })).status).toBe(200);
});
