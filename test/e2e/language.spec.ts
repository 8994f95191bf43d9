import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

test('switches to Russian, remembers it after a reload, and switches back', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.getByTestId('language').selectOption('ru');
  await expect(app.nav(/события/i)).toBeVisible();
  await expect(page.locator('h1')).toHaveText('Обзор');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await page.reload();
  await expect(page.locator('h1')).toHaveText('Обзор');
  await app.screenshotBothThemes('dashboard-ru');
  await app.nav(/проблемы/i).click();
  await expect(page.locator('h1')).toHaveText('Проблемы');
  await app.screenshot('problems-ru');
  await page.getByTestId('language').selectOption('en');
  await expect(page.locator('h1')).toHaveText('Problems');
});

test('keyboard shortcuts: g e, g p, g d, / and the help overlay', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.locator('body').press('g');
  await page.locator('body').press('e');
  await expect(page).toHaveURL(/\/events$/);
  await page.locator('body').press('/');
  await expect(page.getByLabel('Text')).toBeFocused();
  await page.getByLabel('Text').press('Escape');
  await page.locator('body').click();
  await page.keyboard.press('g');
  await page.keyboard.press('p');
  await expect(page).toHaveURL(/\/problems/);
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await app.screenshot('shortcuts');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.keyboard.press('g');
  await page.keyboard.press('d');
  await expect(page).toHaveURL(`${sac.url}/`);
});
