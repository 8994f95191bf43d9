import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const MIRA = { username: 'mira', password: 'Copper-meadow-signal-31' };
const HOSTS = [
  { hostname: 'WEB-01', ipv4: '10.1.0.5' },
  { hostname: 'WEB-02', ipv4: '10.1.0.6' },
  { hostname: 'DB-01', ipv4: '10.2.0.9' },
];

let sac: E2eSac;

test.beforeAll(async () => {
  sac = await startE2eSac();
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { ...MIRA, role: 'monitor' } })).status).toBe(201);
  for (const h of HOSTS) {
    await sac.ingest({ host: { hostname: h.hostname, os_family: 'windows', display_name: h.hostname, ipv4: h.ipv4 }, source: { agent_instance_id: `agent-${h.hostname}` }, title: `Failed sign-in on ${h.hostname}` });
  }
});
test.afterAll(async () => {
  await sac?.close();
});

test('an admin creates a group by rules with a live preview, and the Events list filters by it', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/Host groups/).click();
  await expect(page).toHaveURL(/\/admin\/groups$/);
  await page.getByTestId('group-new').click();
  const dialog = page.getByRole('dialog');
  await dialog.locator('input[name="name"]').fill('Web');
  await dialog.locator('textarea[name="patterns"]').fill('web-*');
  const preview = dialog.getByTestId('group-preview');
  await expect(preview.locator('[data-member]')).toHaveCount(2);
  await expect(preview.locator('[data-member="WEB-01"]')).toContainText('by rules');
  await expect(preview.locator('[data-member="DB-01"]')).toHaveCount(0);

  // A malformed range: the preview says so beside the fields; a correct one narrows the members.
  await dialog.locator('textarea[name="cidrs"]').fill('10.1.0.0/99');
  await expect(preview.getByRole('alert')).toContainText('An address range is not valid');
  await app.screenshot('groups-edit-error');
  await dialog.locator('textarea[name="cidrs"]').fill('10.1.0.5/32');
  await expect(preview.locator('[data-member]')).toHaveCount(1);
  await dialog.locator('textarea[name="cidrs"]').fill('10.1.0.0/16');
  await expect(preview.locator('[data-member]')).toHaveCount(2);
  await app.screenshot('groups-edit');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshot('groups-edit-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  await dialog.getByTestId('group-save').click();
  await expect(page.getByText('Group Web saved')).toBeVisible();
  const row = page.getByTestId('groups-table').locator('tr[data-group="Web"]');
  await expect(row.getByTestId('group-count')).toHaveText('2 hosts');
  await app.screenshotBothThemes('groups-list');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshot('groups-list-phone');
  await page.setViewportSize({ width: 1440, height: 900 });

  await app.open('/events');
  const rows = page.getByTestId('events-table').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await page.getByTestId('group-filter').selectOption({ label: 'Web' });
  await expect(page).toHaveURL(/[?&]group=/);
  await expect(rows).toHaveCount(2);
  await expect(page.getByTestId('events-table')).not.toContainText('DB-01');
  await app.screenshot('groups-events-filter');

  await page.getByTestId('language').selectOption('ru');
  await app.open('/admin/groups');
  await expect(page.getByTestId('groups-table').locator('tr[data-group="Web"]').getByTestId('group-count')).toHaveText('2 узла');
  await app.screenshotBothThemes('groups-list-ru');
  await app.setTheme('dark');
  await page.getByTestId('groups-table').locator('tr[data-group="Web"]').getByTestId('group-edit').click();
  await expect(page.getByTestId('group-preview').locator('[data-member]')).toHaveCount(2);
  await app.screenshot('groups-edit-ru');
  await page.getByRole('dialog').getByRole('button', { name: 'Отмена' }).click();
  await app.setTheme('light');
  await page.getByTestId('language').selectOption('en');
});

test('a monitor limited to a group sees only its hosts; an admin cannot be limited', async ({ browser, page }) => {
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  const created = await sac.api('POST', '/api/v1/groups', { token: admin, body: { name: 'Web farm', rules: { host_patterns: ['web-*'] } } });
  expect(created.status).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/users');
  await page.locator('tr[data-user="admin"]').getByTestId('user-groups').click();
  let limit = page.getByTestId('user-limit');
  await limit.getByTestId('limit-some').check();
  await limit.locator('[data-group="Web farm"] input').check();
  await page.getByTestId('limit-save').click();
  await expect(limit.getByRole('alert')).toContainText('Admins see every host');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  await page.locator('tr[data-user="mira"]').getByTestId('user-groups').click();
  limit = page.getByTestId('user-limit');
  await limit.getByTestId('limit-some').check();
  await limit.locator('[data-group="Web farm"] input').check();
  await app.screenshot('groups-user-limit');
  await page.getByTestId('limit-save').click();
  await expect(page.getByText('Host groups of mira saved')).toBeVisible();

  const miraPage = await (await browser.newContext()).newPage();
  const mira = new ConsolePage(miraPage, sac.url);
  await mira.login(MIRA.username, MIRA.password);
  await mira.open('/hosts');
  const hosts = miraPage.getByTestId('hosts-table').locator('tbody tr[data-host]');
  await expect(hosts).toHaveCount(2);
  await expect(miraPage.getByTestId('hosts-table')).not.toContainText('DB-01');
  await hosts.filter({ hasText: 'WEB-01' }).click();
  await expect(miraPage.getByTestId('host-groups')).toContainText('Web farm');
  await mira.screenshot('groups-host-detail');
  await miraPage.setViewportSize({ width: 390, height: 844 });
  await mira.screenshot('groups-host-detail-phone');
});

test('the dashboard counts one group’s hosts, and a maintenance window names a group', async ({ page }) => {
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  expect((await sac.api('POST', '/api/v1/groups', { token: admin, body: { name: 'Databases', rules: { host_patterns: ['db-*'] } } })).status).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/dashboard/i).click();
  await expect(page.getByTestId('stat-hosts')).toContainText('3');
  await page.getByTestId('group-filter').selectOption({ label: 'Databases' });
  await expect(page).toHaveURL(/[?&]group=/);
  await expect(page.getByTestId('stat-hosts').locator('.value')).toHaveText('1');
  await expect(page.getByTestId('stat-events')).toHaveAttribute('href', /group=/);
  await app.screenshotBothThemes('groups-dashboard');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshot('groups-dashboard-phone');
  await page.setViewportSize({ width: 1440, height: 900 });

  await app.nav(/maintenance/i).click();
  await page.getByTestId('maintenance-new').click();
  const dialog = page.getByRole('dialog', { name: 'New window' });
  await dialog.locator('input[name="reason"]').fill('Database patch night');
  await dialog.getByTestId('window-groups').locator('[data-group="Databases"] input').check();
  await expect(dialog.getByTestId('window-groups').locator('[data-group="Databases"]')).toContainText('1 host');
  await app.screenshot('groups-maintenance-editor');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshot('groups-maintenance-editor-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('maintenance-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Window saved' })).toBeVisible();
  const row = page.getByTestId('maintenance-table').locator('tbody tr').first();
  await expect(row).toContainText('Databases');
  await expect(row).toContainText('In force');
  const windows = (await sac.api('GET', '/api/v1/maintenance-windows/active?host=DB-01', { token: admin })).body.windows;
  expect(windows.map((w: { reason: string }) => w.reason)).toEqual(['Database patch night']);
  await app.screenshotBothThemes('groups-maintenance-list');

  await page.getByTestId('language').selectOption('ru');
  await app.nav(/Обзор/).click();
  await page.getByTestId('group-filter').selectOption({ label: 'Databases' });
  await expect(page.getByTestId('stat-hosts').locator('.value')).toHaveText('1');
  await app.screenshotBothThemes('groups-dashboard-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshot('groups-dashboard-ru-phone');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.getByTestId('language').selectOption('en');
});
