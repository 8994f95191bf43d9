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
