import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';
import { seedFixtures } from './support/seed.js';

const MONITOR_PASSWORD = 'Quiet-evening-shift-2026';
let sac: E2eSac;
test.beforeAll(async () => {
  sac = await startE2eSac();
  await seedFixtures(sac);
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const res = await sac.api('POST', '/api/v1/users', { token, body: { username: 'night', password: MONITOR_PASSWORD, role: 'monitor' } });
  expect(res.status).toBe(201);
  // The fixtures' Windows agent runs 2.1.7-SAC; git is said to have 2.1.8-SAC.
  await sac.sac.store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: 'a'.repeat(40), checked_ms: Date.now(), error: null, error_reason: null });
});
test.afterAll(async () => {
  await sac?.close();
});

test('a monitor sees hosts and inventory but no delete and no admin pages', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login('night', MONITOR_PASSWORD);
  await expect(app.nav(/settings/i)).toHaveCount(0);
  await expect(app.nav(/users/i)).toHaveCount(0);
  await app.nav(/hosts/i).click();
  await expect(page.locator('tr[data-host="RDS01"]')).toContainText('outdated');
  await page.locator('tr[data-host="RDS01"]').click();
  await expect(page.getByTestId('host-detail')).toContainText('Inventory');
  await expect(page.getByTestId('host-detail')).toContainText('outdated');
  await expect(page.getByTestId('host-agent-instance')).toHaveText('6c1d2f0a-7b3e-4f59-a8d2-0e4b9c7f1a23');
  // A Windows host offers the WinRM test only; a Linux host the SSH test and its stored result only.
  await expect(page.getByTestId('winrm-test')).toBeVisible();
  await expect(page.getByTestId('ssh-test')).toHaveCount(0);
  await expect(page.getByTestId('host-ssh-admin')).toHaveCount(0);
  await expect(page.getByTestId('delete-host')).toHaveCount(0);
  await page.locator('tr[data-host="web-01"]').click();
  await expect(page.getByTestId('host-detail').locator('h2')).toHaveText('web-01');
  await expect(page.getByTestId('host-ssh-admin')).toHaveText('not checked yet');
  await expect(page.getByTestId('ssh-test')).toBeVisible();
  await expect(page.getByTestId('winrm-test')).toHaveCount(0);
  await expect(page.getByTestId('action-target')).toHaveCount(0);
  // An admin page typed in the address bar sends the monitor back to the dashboard.
  await page.goto(`${sac.url}/admin/settings`);
  await expect(page).toHaveURL(`${sac.url}/`);
});

test('the host page shows where actions connect, and an admin pins the address', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/hosts/i).click();
  await page.locator('tr[data-host="RDS01"]').click();
  const target = page.getByTestId('action-target');
  await expect(target.getByTestId('target-observed')).toHaveText('127.0.0.1');
  await expect(target.getByTestId('target-pinned')).toHaveText('—');
  // The fixture agents post from loopback but report their LAN addresses.
  await expect(target.getByTestId('target-reported')).toContainText('10.0.0.21');
  await expect(target.getByTestId('target-used')).toContainText('unverified');
  await expect(target.getByTestId('target-why')).toHaveText('The agent connects from 127.0.0.1 but reports 10.0.0.21. An admin must pin the address before credentials go to this host.');
  await target.getByTestId('pin-address').fill('127.0.0.1');
  await target.getByTestId('pin-name').fill('rds01.corp.example');
  await target.getByTestId('pin-save').click();
  await expect(target.getByTestId('target-pinned')).toHaveText('127.0.0.1 · rds01.corp.example');
  await expect(target.getByTestId('target-used')).toHaveText(/127\.0\.0\.1\s*pinned/);
  await target.scrollIntoViewIfNeeded();
  await app.screenshot('host-action-target');
  await target.getByTestId('pin-remove').click();
  await expect(target.getByTestId('target-used')).toContainText('unverified');
});

test('an admin deletes a host after confirming', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/hosts/i).click();
  const rows = page.getByTestId('hosts-table').locator('tbody tr');
  await expect(rows).toHaveCount(4);
  await page.locator('tr[data-host="RDS01"]').click();
  await expect(page.getByTestId('host-detail')).toContainText('Xeon');
  await app.screenshotBothThemes('hosts');
  await page.getByTestId('delete-host').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(rows).toHaveCount(3);
  await expect(page.locator('tr[data-host="RDS01"]')).toHaveCount(0);
  const token = await sac.token('admin', ADMIN_PASSWORD);
  expect(((await sac.api('GET', '/api/v1/hosts', { token })).body.items as { hostname: string }[]).map((h) => h.hostname)).not.toContain('RDS01');
});
