import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

const SHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots');
/** This spec's screenshots, also copied where the review reads them. */
const REVIEW_SHOTS = process.env.SAC_E2E_REVIEW_SHOTS;
test.afterAll(() => {
  if (!REVIEW_SHOTS) return;
  mkdirSync(REVIEW_SHOTS, { recursive: true });
  for (const f of readdirSync(SHOTS).filter((n) => n.startsWith('suggest-'))) copyFileSync(path.join(SHOTS, f), path.join(REVIEW_SHOTS, f));
});

const options = (page: Page) => page.getByRole('listbox').getByRole('option');

/** Screenshots with the offers of `field` open, in both themes (switching the theme closes them: the field loses focus). */
async function shotWithOffers(page: Page, app: ConsolePage, name: string, field: string, offered: string[]) {
  for (const theme of ['dark', 'light'] as const) {
    await app.setTheme(theme);
    await page.locator(field).focus();
    await expect(options(page)).toHaveText(offered);
    await app.screenshot(name);
  }
}

async function suggestionsWork(page: Page, app: ConsolePage, width: number, lang: string) {
  // Events: the host field offers RDG01 for "rdg"; taking it filters the list.
  await app.open('/events');
  const host = page.locator('input[name=hostname]');
  await host.fill('rdg');
  await expect(options(page)).toHaveText(['RDG01']);
  await expect(host).toHaveAttribute('aria-expanded', 'true');
  await shotWithOffers(page, app, `suggest-events-host-${lang}-${width}`, 'input[name=hostname]', ['RDG01']);
  await options(page).first().click();
  await expect(page).toHaveURL(/hostname=RDG01/);
  const rows = page.locator('table.data tbody tr');
  await expect(rows.first()).toContainText('RDG01');

  // Users: both spellings of ivanov are offered, the one starting with the text first; the typed text, applied as is, finds both.
  await page.getByRole('button', { name: /clear|сбросить/i }).click();
  const user = page.locator('input[name=user]');
  await user.fill('IVAN');
  await expect(options(page)).toHaveText(['ivanov', 'CONTOSO\\ivanov']);
  await user.press('Escape');
  await user.press('Enter');
  await expect(page).toHaveURL(/user=IVAN/);
  await expect(rows.first()).toBeVisible();

  // Problems: the rule field offers rdg_flap for "flap", and the problem is found.
  await app.open('/problems');
  const rule = page.locator('input[name=rule]');
  await rule.fill('flap');
  await expect(options(page)).toHaveText(['rdg_flap']);
  await shotWithOffers(page, app, `suggest-problems-rule-${lang}-${width}`, 'input[name=rule]', ['rdg_flap']);
  await rule.press('ArrowDown');
  await expect(options(page).first()).toHaveAttribute('aria-selected', 'true');
  await rule.press('Enter');
  await expect(page).toHaveURL(/rule=rdg_flap/);
  await expect(page.locator('table.data tbody tr').first()).toContainText('RDG01');

  // Maintenance: a typo warns (saving stays possible); a known host taken from the offers does not.
  // The dialog is modal: the theme changes with it closed.
  await app.open('/maintenance');
  const hosts = page.locator('textarea[name=hosts]');
  for (const theme of ['dark', 'light'] as const) {
    await app.setTheme(theme);
    await page.getByTestId('maintenance-new').click();
    await hosts.fill('web-0l');
    await expect(page.getByTestId('unknown-hosts')).toContainText('web-0l');
    await page.locator('input[name=add-host]').fill('web');
    await expect(options(page)).toHaveText(['web-01']);
    await app.screenshot(`suggest-maintenance-${lang}-${width}`);
    if (theme === 'dark') await page.getByRole('dialog').getByRole('button', { name: /cancel|отмена/i }).click();
  }
  await options(page).first().click();
  await expect(hosts).toHaveValue('web-0l\nweb-01');
  await hosts.fill('WEB-01');
  await expect(page.getByTestId('unknown-hosts')).toHaveCount(0);
  await page.keyboard.press('Escape');

  // The API reference lists every operation and links the OpenAPI document.
  await app.open('/api-reference');
  await expect(page.getByTestId('openapi-link')).toHaveAttribute('href', /\/api\/v1\/openapi\.json$/);
  await expect(page.getByTestId('apiref-count')).toContainText(/\d{2,}/);
  await page.locator('input[name=apiref-search]').fill('suggest');
  await expect(page.locator('table.data tbody tr')).toHaveCount(1);
  await expect(page.locator('table.data tbody tr').first()).toContainText('/api/v1/suggestions');
  await app.screenshotBothThemes(`suggest-apiref-${lang}-${width}`);
}

test('filters offer values from the data, maintenance warns for unknown hosts, the API reference is linked (1440, both languages)', async ({ page }) => {
  test.setTimeout(180_000);
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.getByTestId('api-reference-link').click();
  await expect(page).toHaveURL(/\/api-reference$/);
  await suggestionsWork(page, app, 1440, 'en');
  await page.getByTestId('language').selectOption('ru');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ru');
  await suggestionsWork(page, app, 1440, 'ru');
  await page.getByTestId('language').selectOption('en');
});

test('the same on a phone-sized window (390)', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await suggestionsWork(page, app, 390, 'en');
});

test('the console loads its scripts and styles compressed', async ({ page }) => {
  const transfers: { url: string; encoding: string | undefined; sent: number; size: number }[] = [];
  page.on('requestfinished', async (request) => {
    if (!/\.(js|css)$/.test(new URL(request.url()).pathname)) return;
    const response = await request.response();
    if (!response) return;
    const headers = response.headers();
    transfers.push({ url: request.url(), encoding: headers['content-encoding'], sent: Number(headers['content-length']), size: (await response.body()).length });
  });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await expect(page.getByTestId('failed-login-sources')).toBeVisible();
  await expect.poll(() => transfers.length).toBeGreaterThan(2);
  // Files under 1 KB gain less than their headers and go as they are.
  expect(transfers.filter((t) => t.size >= 1024 && t.encoding !== 'br')).toEqual([]);
  const sent = transfers.reduce((n, t) => n + t.sent, 0);
  const size = transfers.reduce((n, t) => n + t.size, 0);
  process.stdout.write(`cold load of sign-in and dashboard: ${transfers.length} scripts and styles, ${Math.round(size / 1024)} KB, ${Math.round(sent / 1024)} KB sent\n`);
  expect(sent).toBeLessThan(size / 2.5);
});
