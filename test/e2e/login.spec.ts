import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;
test.beforeAll(async () => {
  sac = await startE2eSac();
});
test.afterAll(async () => {
  await sac?.close();
});

test('signs in, keeps the session over a reload, and signs out', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.open('/');
  await expect(page).toHaveURL(/\/login/);
  await app.screenshotBothThemes('login');
  await app.login('admin', ADMIN_PASSWORD);
  await expect(page).toHaveURL(`${sac.url}/`);
  await page.reload();
  await expect(page.getByTestId('current-user')).toContainText('admin');
  await page.getByRole('button', { name: /sign out/i }).click();
  await expect(page).toHaveURL(/\/login/);
});

test('a user changes their own password and signs in with the new one', async ({ page }) => {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/users', { token, body: { username: 'ops', password: 'Blue-lantern-river-42', role: 'monitor' } })).status).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login('ops', 'Blue-lantern-river-42');
  await page.getByTestId('current-user').click();
  const dialog = page.getByRole('dialog', { name: 'Change my password' });
  await dialog.getByLabel('Current password').fill('Blue-lantern-river-42');
  await dialog.getByLabel(/^New password/).first().fill('Green-harbour-stone-77');
  await dialog.getByLabel('New password again').fill('Green-harbour-stone-77');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Password changed' })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('current-user')).toContainText('ops');
  await page.getByRole('button', { name: /sign out/i }).click();
  await app.login('ops', 'Green-harbour-stone-77');
});

test('explains a wrong password, then the throttle lock with the time to wait', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.open('/login');
  await page.getByLabel(/username/i).fill('admin');
  for (let i = 0; i < 3; i++) {
    await page.getByLabel(/password/i).fill(`wrong-password-${i}`);
    await page.getByRole('button', { name: /sign in/i }).click();
    await expect(page.getByTestId('login-error')).toHaveText(/wrong username or password/i);
  }
  await page.getByLabel(/password/i).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page.getByTestId('login-error')).toHaveText(/too many failed attempts\. try again in \d+ min/i);
  await expect(page.getByRole('button', { name: /sign in/i })).toBeDisabled();
  await app.screenshot('login-throttled');
});
