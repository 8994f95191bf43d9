import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

test('acknowledges then resolves a problem with comments', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/problems/i).click();
  const rows = page.getByTestId('problems-table').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  await app.screenshotBothThemes('problems');
  await rows.filter({ hasText: 'account' }).first().click();
  const detail = page.getByTestId('problem-detail');
  await expect(page.getByTestId('problem-status')).toHaveText('Open');

  await detail.getByRole('textbox').fill('Called the user, password reset in progress');
  await detail.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByTestId('problem-status')).toHaveText('Acknowledged');
  await expect(detail).toContainText('Called the user, password reset in progress');
  await expect(detail.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await app.screenshotBothThemes('problem-detail');

  await detail.getByRole('textbox').fill('Unlocked after verification');
  await detail.getByRole('button', { name: 'Resolve' }).click();
  await expect(page.getByTestId('problem-status')).toHaveText('Resolved');
  await expect(detail).toContainText('Unlocked after verification');
  await expect(detail.getByRole('button', { name: 'Resolve' })).toHaveCount(0);
});

test('explains a 409 when someone else resolved the problem first', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  // Without the live stream this page does not hear about the other operator's change: its view is stale.
  await page.route('**/api/v1/stream/events**', (route) => route.abort());
  await app.login();
  await page.goto(`${sac.url}/problems`);
  const row = page.getByTestId('problems-table').locator('tbody tr').filter({ hasText: /bruteforce/i }).first();
  await row.click();
  await expect(page.getByTestId('problem-status')).toHaveText('Open');
  const id = new URL(page.url()).pathname.split('/').pop()!;

  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', `/api/v1/problems/${id}/resolve`, { token, body: { comment: 'done elsewhere' } })).status).toBe(200);

  await page.getByTestId('problem-detail').getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByTestId('problem-conflict')).toHaveText(/changed meanwhile: it is now Resolved/);
  await expect(page.getByTestId('problem-status')).toHaveText('Resolved');
  await app.screenshot('problem-conflict');
});
