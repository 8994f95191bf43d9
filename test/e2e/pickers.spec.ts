import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

// A zone that is not UTC, so that the zone named beside the fields is visibly the console's.
test.use({ timezoneId: 'Europe/Moscow' });
const ZONE = 'Europe/Moscow, UTC+3';
const sac = useSeededSac();

/** Both themes at the current size (`test-results/screenshots/<name>-<theme>.png`). */
const shots = (app: ConsolePage, name: string) => app.screenshotBothThemes(name);
/** A dialog blocks the theme button: the theme is set before it opens, one screenshot. */
const dialogShot = (app: ConsolePage, name: string) => app.screenshot(name);

async function language(page: Page, lang: 'en' | 'ru') {
  await page.getByTestId('language').first().selectOption(lang);
  await expect(page.locator('html')).toHaveAttribute('lang', lang);
}

test('Events "Between…" reads ISO and the console order, steps with the arrows, names the zone and says what it cannot use', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events`);
  await page.getByTestId('range-select').selectOption('custom');
  const from = page.getByTestId('range-from');
  const to = page.getByTestId('range-to');
  await expect(page.getByTestId('date-zone').first()).toHaveText(ZONE);

  // ISO with a space, ISO with a T, and the console's own order all apply.
  await from.fill('2026-11-27 10:00');
  await from.press('Enter');
  await expect(page).toHaveURL(/from=2026-11-27T10(:|%3A)00(:|%3A)00/);
  await expect(from).toHaveValue('27/11/2026 10:00');
  await to.fill('2026-11-28T09:30');
  await to.press('Enter');
  await expect(page).toHaveURL(/to=2026-11-28T09(:|%3A)30/);

  // ↑ on the day moves the day; ↓ on the hour moves the hour.
  await from.click();
  await from.press('Home');
  await from.press('ArrowUp');
  await expect(from).toHaveValue('28/11/2026 10:00');
  await from.press('End');
  await from.press('ArrowLeft');
  await from.press('ArrowLeft');
  await from.press('ArrowLeft');
  await from.press('ArrowDown');
  await expect(from).toHaveValue('28/11/2026 09:00');
  await from.press('Enter');
  await expect(page).toHaveURL(/from=2026-11-28T09(:|%3A)00/);

  // Unreadable: said under the field; the URL (the list's range) keeps the last good value, as the message says.
  await from.fill('27/13/2026 10:00');
  await from.press('Enter');
  await expect(page.getByTestId('date-error')).toHaveText('Not a date: write dd/mm/yyyy hh:mm or 2026-11-27 10:00. The previous value still applies.');
  await expect(from).toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/from=2026-11-28T09(:|%3A)00/);
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  await from.fill('28/11/2026 09:00');
  await from.press('Enter');
  await expect(page.getByTestId('date-error')).toHaveCount(0);

  // Reversed: To before From is an inline message, never a request that fails.
  await to.fill('2026-11-27 08:00');
  await to.press('Enter');
  await expect(page.getByTestId('date-error')).toHaveText('To is before From. The list still shows the previous range.');
  await expect(page).toHaveURL(/to=2026-11-28T09(:|%3A)30/);
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  await shots(app, 'picker-events-reversed-en');

  // The reversed range is still what was typed: the message follows the language.
  await language(page, 'ru');
  await expect(page.getByTestId('date-error')).toHaveText('«По» раньше, чем «С». Список показывает прежний период.');
  await expect(to).toHaveValue('27.11.2026 08:00');
  await shots(app, 'picker-events-reversed-ru');
  await to.fill('28.11.2026 12:00');
  await to.press('Enter');
  await expect(page).toHaveURL(/to=2026-11-28T12(:|%3A)00/);
  await page.setViewportSize({ width: 390, height: 844 });
  await from.fill('вчера');
  await from.press('Enter');
  await expect(page.getByTestId('date-error')).toContainText('Это не дата');
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
  await shots(app, 'picker-events-phone-ru');
  await language(page, 'en');
  await shots(app, 'picker-events-phone-en');
});

test('a reversed range typed into the address bar is a 400 the page states, not "Something went wrong"', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events?from=2026-11-28T10:00:00&to=2026-11-27T10:00:00`);
  await expect(page.getByTestId('date-error')).toHaveText('To is before From. The list still shows the previous range.');
  const refused = page.getByTestId('request-refused');
  await expect(refused).toContainText('Some values are not valid:');
  await expect(refused).toContainText('to must not be before the start');
  await expect(refused.getByRole('button', { name: 'Retry' })).toHaveCount(0);
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  await app.screenshotBothThemes('picker-events-url-reversed-en');
});

test('the Maintenance window is typed with the same picker, in the console zone, and an end before the start is said at the field', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.setTheme('light');
  await app.nav(/maintenance/i).click();
  await page.getByTestId('maintenance-new').click();
  const dialog = page.getByRole('dialog', { name: 'New window' });
  await expect(dialog.locator('input[type="datetime-local"]')).toHaveCount(0);
  await dialog.locator('input[name="reason"]').fill('Disk replacement');
  await dialog.locator('textarea[name="hosts"]').fill('web-01');
  await dialog.locator('input[name="starts"]').fill('2030-01-10 22:00');
  await dialog.locator('input[name="ends"]').fill('10/01/2030 21:00');
  await dialog.locator('input[name="ends"]').press('Enter');
  await expect(dialog.getByTestId('date-error')).toHaveText('The end must be after the start.');
  await expect(dialog.getByTestId('date-zone').first()).toHaveText(ZONE);
  await dialogShot(app, 'picker-maintenance-en');
  await dialog.locator('input[name="ends"]').fill('2030-01-11 02:00');
  await dialog.locator('input[name="ends"]').press('Tab');
  await expect(dialog.getByTestId('date-error')).toHaveCount(0);
  await page.getByTestId('maintenance-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Window saved' })).toBeVisible();
  const token = await sac.token('admin', 'Night-shift-watch-2026');
  const windows = (await sac.api('GET', '/api/v1/maintenance-windows', { token })).body;
  // 22:00 in Moscow is 19:00 UTC.
  expect(JSON.stringify(windows)).toContain('"starts_at":"2030-01-10T19:00:00.000Z"');
  await language(page, 'ru');
  await app.setTheme('dark');
  await page.getByTestId('maintenance-new').click();
  await page.getByRole('dialog').locator('input[name="ends"]').fill('');
  await page.getByRole('dialog').locator('input[name="ends"]').press('Enter');
  await page.getByTestId('maintenance-save').click();
  await expect(page.getByRole('dialog').getByTestId('date-error')).toHaveText('Укажите конец или сделайте окно еженедельным.');
  await dialogShot(app, 'picker-maintenance-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await dialogShot(app, 'picker-maintenance-phone-ru');
  await page.getByRole('dialog').getByRole('button', { name: 'Отмена' }).click();
  await shots(app, 'picker-maintenance-list-phone-ru');
  await language(page, 'en');
});

test('the report period is in the console zone, named in its column', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/reports');
  await page.getByRole('button', { name: /generate now/i }).click();
  await expect(page.getByTestId('reports-table')).toContainText(`Period (${ZONE})`);
  await shots(app, 'picker-reports-en');
  await language(page, 'ru');
  await expect(page.getByTestId('reports-table')).toContainText(`Период (${ZONE})`);
  await page.setViewportSize({ width: 390, height: 844 });
  await shots(app, 'picker-reports-phone-ru');
  await language(page, 'en');
});

test('settings: a value out of range is said in words, and another category with unsaved edits asks first', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/settings');
  // Every category opens without asking when nothing was edited.
  for (const c of await page.locator('[data-category]').evaluateAll((els) => els.map((e) => e.getAttribute('data-category')!))) {
    await page.locator(`[data-category="${c}"]`).click();
    await expect(page).toHaveURL(new RegExp(`category=${c}`));
    await expect(page.getByRole('dialog')).toHaveCount(0);
  }
  await app.setTheme('light');
  await page.locator('[data-category="webhook"]').click();
  await page.locator('[data-field="timeout_ms"]').fill('50');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('alert').filter({ hasText: 'must be at least 100' })).toBeVisible();
  await expect(page.getByText('Too small')).toHaveCount(0);

  // Another category: asked; "Keep editing" stays with the edit, "Discard changes" goes.
  await page.locator('[data-category="smtp"]').click();
  const ask = page.getByRole('dialog', { name: 'Unsaved changes' });
  await expect(ask).toContainText('The changes to');
  await dialogShot(app, 'picker-settings-unsaved-en');
  await ask.getByRole('button', { name: 'Keep editing' }).click();
  await expect(page).toHaveURL(/category=webhook/);
  await expect(page.locator('[data-field="timeout_ms"]')).toHaveValue('50');
  await page.locator('[data-category="smtp"]').click();
  await page.getByRole('dialog', { name: 'Unsaved changes' }).getByRole('button', { name: 'Discard changes' }).click();
  await expect(page).toHaveURL(/category=smtp/);
  await page.locator('[data-category="webhook"]').click();
  await expect(page.locator('[data-field="timeout_ms"]')).toHaveValue('10000');

  await language(page, 'ru');
  await page.locator('[data-field="timeout_ms"]').fill('200000');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('alert').filter({ hasText: 'не больше 120000' })).toBeVisible();
  await shots(app, 'picker-settings-invalid-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.setTheme('dark');
  await page.locator('[data-category="smtp"]').click();
  await expect(page.getByRole('dialog', { name: 'Изменения не сохранены' })).toBeVisible();
  await dialogShot(app, 'picker-settings-unsaved-phone-ru');
  await page.getByRole('dialog').getByRole('button', { name: 'Отменить изменения' }).click();
  await language(page, 'en');
});

test("problem titles SAC builds read in Russian; an agent's title stays", async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/problems/i).click();
  const flap = page.getByTestId('problems-table').locator('tbody tr').filter({ hasText: 'RD Gateway flap:' });
  await expect(flap).toHaveCount(1);
  await language(page, 'ru');
  await expect(page.getByTestId('problems-table').locator('tbody tr').filter({ hasText: 'Флаппинг RD Gateway:' })).toHaveCount(1);
  await expect(page.getByTestId('problems-table')).not.toContainText('RD Gateway flap:');
  await shots(app, 'picker-problems-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await shots(app, 'picker-problems-phone-ru');
  await language(page, 'en');
});

test('the phone counts the events of the last 24 h as the desktop does', async ({ page }) => {
  // An event in the hour that begins 24 h ago: the desktop's "last 24 hours" counts that hour (its
  // range starts 24 h ago, widened to the whole hour); the phone asked for the daemon's default,
  // which starts an hour later, and counted one event less.
  const hourStart = Math.floor((Date.now() - 24 * 3_600_000) / 3_600_000) * 3_600_000;
  await sac.ingest({ host: { hostname: 'web-01', os_family: 'linux' }, type: 'ssh.login.failed', severity: 'warning', occurred_at: new Date(hourStart + 1000).toISOString() });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/');
  const desktop = (await page.getByTestId('stat-events').locator('.value').textContent())!.trim();
  await page.setViewportSize({ width: 390, height: 844 });
  await app.open('/m');
  await expect(page.getByTestId('events-24h')).toHaveText(desktop);
  await app.screenshot('picker-phone-overview-en');
});
