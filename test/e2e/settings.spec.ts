import { createHmac } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { startWebhookPeer } from './support/peer.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const SECRET = 'hook-signing-secret-e2e';
let sac: E2eSac;
let peer: Awaited<ReturnType<typeof startWebhookPeer>>;
test.beforeAll(async () => {
  sac = await startE2eSac();
  peer = await startWebhookPeer();
});
test.afterAll(async () => {
  await sac?.close();
  await peer?.close();
});

test('saves webhook settings with a write-only secret and a test send reaches the loopback peer', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/settings/i).click();
  await page.locator('[data-category="webhook"]').click();
  await expect(page.locator('h2')).toHaveText('Webhook');
  await page.locator('[data-field="url"]').fill(peer.url);
  await page.locator('[data-field="secret"]').fill(SECRET);
  await page.locator('[data-field="timeout_ms"]').fill('5000');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Webhook saved' })).toBeVisible();

  // Stored: the page reloads the values; the secret is never shown again, only that it is set.
  await page.reload();
  await expect(page.locator('[data-field="url"]')).toHaveValue(peer.url);
  await expect(page.locator('[data-field="secret"]')).toHaveValue('');
  await expect(page.locator('[data-field="secret"]')).toHaveAttribute('placeholder', /set/);
  expect(await page.content()).not.toContain(SECRET);
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect(JSON.stringify((await sac.api('GET', '/trpc/settings.get?input=' + encodeURIComponent(JSON.stringify({ category: 'webhook' })), { token })).body)).not.toContain(SECRET);

  await page.getByTestId('settings-test').click();
  await expect(page.getByTestId('settings-test-result')).toContainText('Test delivered');
  expect(peer.requests).toHaveLength(1);
  const req = peer.requests[0];
  expect(req.method).toBe('POST');
  expect(req.headers['x-sac-signature']).toContain(createHmac('sha256', SECRET).update(req.body).digest('hex'));
  await app.screenshotBothThemes('settings-webhook');

  // A bad value is refused in the form with the shared schema's message, before any request.
  await page.locator('[data-field="url"]').fill('ftp://nope');
  await page.getByTestId('settings-save').click();
  await expect(page.locator('.row.invalid')).toContainText('http');
});

test('a failing channel shows the real error of the test send', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/admin/settings?category=webhook`);
  await page.locator('[data-field="url"]').fill('http://127.0.0.1:9/closed');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Webhook saved' })).toBeVisible();
  await page.getByTestId('settings-test').click();
  await expect(page.getByTestId('settings-test-result')).toContainText('Test failed');
  await app.screenshot('settings-test-failed');
});
