import { expect, test } from '@playwright/test';
import { sshBruteForceAttempt } from '../helpers/events.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, agentTime, startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;

test.beforeAll(async () => {
  sac = await startE2eSac();
  // An SSH brute force: 30 failures from two addresses against three users (20/10 and 12/10/8).
  for (let i = 0; i < 30; i++) await sac.ingest(sshBruteForceAttempt(i, agentTime(30 - i)));
});

test.afterAll(async () => {
  await sac?.close();
});

test('the problem pane names the attacking addresses and users with counts, and pivots to their events', async ({ page }) => {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const list = await sac.api('GET', '/api/v1/problems?type=ssh.login.failed', { token });
  const id = (list.body.items as { id: string }[])[0].id;
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open(`/problems/${id}`);
  const facts = page.getByTestId('problem-facts');
  await expect(facts.getByTestId('problem-facts-addresses')).toHaveText(/203\.0\.113\.9\s*20\s*198\.51\.100\.23\s*10/);
  await expect(facts.getByTestId('problem-facts-users')).toHaveText(/admin\s*12\s*root\s*10\s*oracle\s*8/);
  // The problem's own host is named in its header, not again as a list.
  await expect(facts.getByTestId('problem-facts-hosts')).toHaveCount(0);
  await app.screenshotBothThemes('problem-facts');
  await page.getByTestId('language').selectOption('ru');
  await expect(facts.getByTestId('problem-facts-addresses')).toContainText('Адреса источников');
  await app.screenshot('problem-facts-ru');
  await page.getByTestId('language').selectOption('en');
  await page.setViewportSize({ width: 390, height: 844 });
  await facts.scrollIntoViewIfNeeded();
  await expect(facts).toBeInViewport();
  await app.screenshot('phone-problem-facts');
  await page.setViewportSize({ width: 1440, height: 900 });

  await facts.getByRole('link', { name: '198.51.100.23' }).click();
  await expect(page).toHaveURL(/\/events\?.*ip=198\.51\.100\.23/);
});
