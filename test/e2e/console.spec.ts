import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();
const MONITOR_PASSWORD = 'Quiet-night-watch-2026';

test('a 409 names the status the daemon reports, even when the reload of the problem fails', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await page.route('**/api/v1/stream/events**', (route) => route.abort());
  await app.login();
  await page.goto(`${sac.url}/problems`);
  await page.getByTestId('problems-table').locator('tbody tr').filter({ hasText: /account/i }).first().click();
  await expect(page.getByTestId('problem-status')).toHaveText('Open');
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', `/api/v1/problems/${id}/acknowledge`, { token, body: {} })).status).toBe(200);

  // The console's reload after the 409 still sees the old state (as when a reload started by the
  // live stream overtakes it): the message must come from the 409 itself.
  await page.route('**/trpc/**', async (route) => {
    if (!route.request().url().includes('problems.byId')) return route.continue();
    const response = await route.fetch();
    await route.fulfill({ response, body: (await response.text()).replaceAll('"status":"acknowledged"', '"status":"open"') });
  });
  await page.getByTestId('problem-detail').getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByTestId('problem-conflict')).toHaveText(/it is now Acknowledged/);
});

test('on a phone the menu button opens the sidebar and the events list does not scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  const menu = page.getByTestId('menu-button');
  await expect(menu).toBeVisible();
  await expect(page.getByTestId('sidebar')).not.toBeInViewport();
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('sidebar')).toBeInViewport();
  await app.nav(/events/i).click();
  await expect(page).toHaveURL(/\/events/);
  await expect(page.getByTestId('sidebar')).not.toBeInViewport();
  await expect(page.getByTestId('events-table').locator('tbody tr').first()).toBeVisible();
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
  // The event pane covers the screen on a phone.
  await page.getByTestId('events-table').locator('tbody tr').first().click();
  const pane = await page.getByTestId('event-detail').boundingBox();
  expect(pane).toMatchObject({ x: 0, y: 0, width: 390 });
  await app.screenshot('phone-event-detail');
});

test('dates follow the console language, not the browser', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events`);
  const firstTime = page.getByTestId('events-table').locator('tbody tr').first().locator('time');
  await expect(firstTime).toHaveText(/^\d{2}\/\d{2}\/\d{4}, \d{2}:\d{2}:\d{2}$/);
  await page.getByTestId('range-select').selectOption('custom');
  await expect(page.getByTestId('range-from')).toHaveAttribute('placeholder', 'dd/mm/yyyy hh:mm');
  await page.getByTestId('language').selectOption('ru');
  await expect(firstTime).toHaveText(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}:\d{2}$/);
  await expect(page.getByTestId('range-from')).toHaveAttribute('placeholder', 'дд.мм.гггг чч:мм');
  // A typed Russian date becomes the same local time in the URL.
  await page.getByTestId('range-from').fill('01.01.2020 08:30');
  await page.getByTestId('range-from').press('Enter');
  await expect(page).toHaveURL(/from=2020-01-01T08(:|%3A)30(:|%3A)00/);
  await page.getByTestId('language').selectOption('en');
});

test('the time range and the sort order live in the URL', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events`);
  const rows = page.getByTestId('events-table').locator('tbody tr');
  await expect(rows).toHaveCount(24);
  await page.getByTestId('range-select').selectOption('15m');
  await expect(page).toHaveURL(/[?&]range=15m/);
  await expect.poll(() => rows.count()).toBeLessThan(24);
  const recent = await rows.count();
  expect(recent).toBeGreaterThan(0);
  await page.reload();
  await expect(page.getByTestId('range-select')).toHaveValue('15m');
  await expect(rows).toHaveCount(recent);

  await page.getByTestId('range-select').selectOption('any');
  await expect(rows).toHaveCount(24);
  const times = () => rows.locator('time').evaluateAll((els) => els.map((el) => Date.parse(el.getAttribute('datetime') ?? '')));
  const newestFirst = await times();
  expect(newestFirst[0]).toBeGreaterThanOrEqual(newestFirst.at(-1)!);
  await page.getByTestId('sort-time').click();
  await expect(page).toHaveURL(/[?&]order=asc/);
  await expect.poll(async () => (await times())[0]).toBe(Math.min(...newestFirst));
  await page.reload();
  await expect.poll(async () => (await times())[0]).toBe(Math.min(...newestFirst));
  await page.getByTestId('refresh-select').selectOption('30s');
  await expect(page).toHaveURL(/[?&]refresh=30s/);
});

test('pivots from an event to all events of its user, and the event pane has a URL of its own', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events?type=rdp.login.failed`);
  await page.getByTestId('events-table').locator('tbody tr').first().click();
  await expect(page).toHaveURL(/[?&]event=[0-9a-f-]{36}/);
  const shared = page.url();
  await page.goto(`${sac.url}/`);
  await page.goto(shared);
  const detail = page.getByTestId('event-detail');
  await expect(detail).toContainText('rdp.login.failed');
  const user = (await detail.getByTestId('pivot-user').locator('xpath=..').innerText()).split('·')[0].trim();
  await detail.getByTestId('pivot-user').click();
  // The pivot asks for the whole name (in double quotes), not text in it.
  await expect(page).toHaveURL(new RegExp(`[?&]user=${encodeURIComponent(`"${user}"`)}`));
  const rows = page.getByTestId('events-table').locator('tbody tr');
  await expect(rows.first()).toBeVisible();
  const actors = await rows.evaluateAll((trs) => trs.map((tr) => tr.children[5]?.textContent?.trim()));
  expect(new Set(actors)).toEqual(new Set([user]));
  await app.screenshot('events-pivot-user');
});

test('saves a search in the browser and opens it again', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events?type=rdp.login.failed&range=7d`);
  await page.getByTestId('save-search').click();
  await page.getByTestId('saved-name').fill('Failed RDP this week');
  await page.getByTestId('saved-name').press('Enter');
  await page.goto(`${sac.url}/events`);
  await page.getByTestId('saved-select').selectOption('Failed RDP this week');
  await expect(page).toHaveURL(/type=rdp\.login\.failed/);
  await expect(page).toHaveURL(/range=7d/);
  await expect(page.getByTestId('saved-select')).toHaveValue('Failed RDP this week');
});

test('pages through more events than one page with the total shown', async ({ page }) => {
  for (let i = 0; i < 110; i += 1) await sac.ingest({ type: 'ssh.login.failed', severity: 'warning', title: `Paging probe ${i}` });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/events?q=Paging%20probe`);
  const rows = page.getByTestId('events-table').locator('tbody tr');
  await expect(rows).toHaveCount(100);
  await expect(page.getByTestId('events-count')).toHaveText('100 of 110');
  await page.getByRole('button', { name: 'Load more' }).click();
  await expect(rows).toHaveCount(110);
  await expect(page.getByTestId('events-count')).toHaveText('110 of 110');
});

test('a monitor sent away from an admin page is told why', async ({ page }) => {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const created = await sac.api('POST', '/api/v1/users', { token, body: { username: 'duty-officer', password: MONITOR_PASSWORD, role: 'monitor' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login('duty-officer', MONITOR_PASSWORD);
  await page.goto(`${sac.url}/admin/settings`);
  await expect(page).toHaveURL(`${sac.url}/`);
  await expect(page.getByText('That page is for administrators only')).toBeVisible();
});
