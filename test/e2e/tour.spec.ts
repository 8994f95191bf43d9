import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();
const SHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots/tour');

const SCREENS = [
  ['dashboard', '/'],
  ['events', '/events'],
  ['problems', '/problems'],
  ['hosts', '/hosts'],
  ['settings', '/admin/settings'],
  ['users', '/admin/users'],
  ['api-keys', '/admin/api-keys'],
  ['audit', '/admin/audit'],
  ['deliveries', '/admin/deliveries'],
  ['reports', '/admin/reports'],
  ['maintenance', '/maintenance'],
  ['agents', '/agents'],
  ['commands', '/commands'],
  ['devices', '/admin/devices'],
] as const;

/** Width of the page's scrollable area past the viewport (0 = no horizontal scroll) and the elements that stick out. */
async function overflowX(page: Page): Promise<{ px: number; culprits: string[] }> {
  return page.evaluate(`(() => {
    const widest = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth, document.querySelector('.content')?.scrollWidth ?? 0);
    const culprits = [...document.querySelectorAll('.content *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && el.closest('.table-wrap, .scroll-x') === null)
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.'));
    return { px: widest - window.innerWidth, culprits };
  })()`);
}

for (const [width, height] of [
  [1440, 900],
  [390, 844],
] as const) {
  test(`every main screen at ${width}×${height} in both languages and themes`, async ({ page }) => {
    test.setTimeout(180_000);
    mkdirSync(SHOTS, { recursive: true });
    await page.setViewportSize({ width, height });
    // A screen that fails to render (a message that does not compile, a script error) logs an error.
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    const app = new ConsolePage(page, sac.url);
    await app.login();
    for (const locale of ['en', 'ru'] as const) {
      await page.evaluate(`localStorage.setItem('sac.locale', '${locale}')`);
      for (const theme of ['light', 'dark'] as const) {
        await page.evaluate(`localStorage.setItem('sac.theme', '${theme}')`);
        for (const [name, url] of SCREENS) {
          await app.open(url);
          await expect(page.locator('h1').first()).toBeVisible();
          await page.waitForTimeout(400);
          if (width < 500) {
            const over = await overflowX(page);
            expect(over.px, `${name} scrolls sideways at ${width} px: ${over.culprits.join(', ')}`).toBeLessThanOrEqual(0);
          }
          await page.screenshot({ path: path.join(SHOTS, `${name}-${locale}-${theme}-${width}.png`) });
        }
      }
    }
    // The daily report viewer (dark theme, Russian, as the loop left it): generated, shown, downloadable.
    await app.open('/admin/reports');
    await page.getByRole('button', { name: 'Сформировать сейчас' }).click();
    await expect(page.getByTestId('report-frame')).toBeVisible();
    await page.waitForTimeout(400);
    await page.screenshot({ path: path.join(SHOTS, `report-viewer-ru-dark-${width}.png`), fullPage: true });
    const download = page.waitForEvent('download');
    await page.getByTestId('report-download').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^sac-daily-report-\d{4}-\d{2}-\d{2}\.html$/);
    const html = Buffer.concat(await (await file.createReadStream()).toArray()).toString('utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(errors).toEqual([]);
  });
}
