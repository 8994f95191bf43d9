import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

const cellTexts = async (page: Page, table: string, column: number) =>
  page.getByTestId(table).locator(`tbody tr td:nth-child(${column})`).allInnerTexts();

test('the dashboard range and auto-refresh live in the URL, and the tiles follow them', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await expect(page.getByTestId('stat-events')).toContainText('Events (24 h)');
  await page.getByTestId('range-select').selectOption('7d');
  await expect(page).toHaveURL(/[?&]range=7d/);
  await expect(page.getByTestId('stat-events')).toContainText('Events (7 days)');
  await expect(page.getByTestId('stat-events')).toHaveAttribute('href', /range=7d/);
  await page.getByTestId('refresh-select').selectOption('1m');
  await expect(page).toHaveURL(/refresh=1m/);
  await page.reload();
  await expect(page.getByTestId('range-select')).toHaveValue('7d');
  await expect(page.getByTestId('refresh-select')).toHaveValue('1m');
  await expect(page.getByTestId('stat-events')).toContainText('Events (7 days)');

  // An absolute range in the past: nothing counted, and the counted hours are stated.
  await page.goto(`${sac.url}/?from=2020-01-01T00:00&to=2020-01-02T00:00`);
  await expect(page.getByTestId('range-select')).toHaveValue('custom');
  await expect(page.getByTestId('dash-range')).toContainText('Counted:');
  await expect(page.getByTestId('stat-events').locator('.value')).toHaveText('0');
  await page.goto(`${sac.url}/`);
  await expect(page.getByTestId('stat-events').locator('.value')).not.toHaveText('0');
});

test('problem and host columns sort on the server, the sort in the URL', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/problems?status=open,acknowledged,resolved`);
  await expect(page.getByTestId('problems-table').locator('tbody tr').first()).toBeVisible();
  await page.getByTestId('sort-hostname').click();
  await expect(page).toHaveURL(/sort=hostname/);
  const asc = await cellTexts(page, 'problems-table', 4);
  expect(asc.length).toBeGreaterThan(1);
  expect(asc).toEqual([...asc].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
  await page.getByTestId('sort-hostname').click();
  await expect(page).toHaveURL(/sort=-hostname/);
  await expect.poll(() => cellTexts(page, 'problems-table', 4)).toEqual([...asc].reverse());
  await page.getByTestId('sort-count').click();
  await expect(page).toHaveURL(/sort=-count/);
  await expect(page.getByTestId('problems-table').locator('th[aria-sort="descending"]')).toContainText('Count');

  await page.goto(`${sac.url}/hosts`);
  await page.getByTestId('sort-ip').click();
  await page.getByTestId('sort-ip').click();
  await expect(page).toHaveURL(/sort=-ip/);
  await expect.poll(() => cellTexts(page, 'hosts-table', 3)).toEqual(['10.0.1.10', '10.0.0.21', '10.0.0.5', '10.0.0.2']);
  await page.reload();
  await expect.poll(() => cellTexts(page, 'hosts-table', 3)).toEqual(['10.0.1.10', '10.0.0.21', '10.0.0.5', '10.0.0.2']);
});

test('assign a problem to me, filter "assigned to me", resolve and reopen it', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/problems`);
  await page.getByTestId('problems-table').locator('tbody tr').first().click();
  const pane = page.getByTestId('problem-detail');
  await expect(pane.getByTestId('assignee-name')).toHaveText('Unassigned');
  await pane.getByTestId('assign-me').click();
  await expect(pane.getByTestId('assignee-name')).toHaveText('admin');
  const title = (await pane.locator('h2').innerText()).trim();

  await page.getByTestId('filter-mine').click();
  await expect(page).toHaveURL(/assignee=me/);
  const rows = page.getByTestId('problems-table').locator('tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(title);
  await expect(rows.first().getByTestId('assignee-cell')).toHaveText('admin');
  await app.screenshot('problems-assigned-en');

  await pane.getByRole('button', { name: 'Resolve' }).click();
  await expect(pane.getByTestId('problem-status')).toHaveText('Resolved');
  await pane.getByTestId('reopen').click();
  await expect(pane.getByTestId('problem-status')).toHaveText('Open');
  await expect(pane.locator('.comments')).toHaveCount(0);
  await pane.getByTestId('unassign').click();
  await expect(pane.getByTestId('assignee-name')).toHaveText('Unassigned');
  await expect(rows).toHaveCount(0);
});

test('hosts show a 24 h activity sparkline and the last event; screens in both languages and at phone size', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/hosts`);
  const rds = page.getByTestId('hosts-table').locator('tr[data-host="RDS01"]');
  await expect(rds.getByTestId('sparkline')).toBeVisible();
  await expect(rds.getByTestId('sparkline')).toHaveAttribute('aria-label', /^\d+ events in the last 24 hours/);
  expect(await rds.getByTestId('sparkline').locator('rect').evaluateAll((bars) => bars.filter((b) => Number(b.getAttribute('height')) > 0).length)).toBeGreaterThan(0);
  await expect(rds.getByTestId('last-event')).toContainText(/ago|now/);

  for (const lang of ['en', 'ru'] as const) {
    await page.getByTestId('language').selectOption(lang);
    for (const theme of ['light', 'dark'] as const) {
      await app.setTheme(theme);
      await page.setViewportSize({ width: 1440, height: 900 });
      for (const [name, path] of [['dashboard', '/?range=7d'], ['hosts', '/hosts'], ['problems', '/problems?status=open,acknowledged,resolved']] as const) {
        await page.goto(`${sac.url}${path}`);
        await page.waitForLoadState('networkidle');
        await app.screenshot(`operator-${name}-${lang}`);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      for (const [name, path] of [['dashboard', '/?range=7d'], ['hosts', '/hosts'], ['problems', '/problems']] as const) {
        await page.goto(`${sac.url}${path}`);
        await page.waitForLoadState('networkidle');
        const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
        expect(overflow, `${name} at 390 px in ${lang}/${theme}`).toBeLessThanOrEqual(0);
        await app.screenshot(`operator-${name}-phone-${lang}`);
      }
    }
  }
  await page.getByTestId('language').selectOption('en');
});
