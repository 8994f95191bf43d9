import { expect, test } from '@playwright/test';
import * as OTPAuth from 'otpauth';
import { ConsolePage } from './support/console.js';
import { startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;
test.beforeAll(async () => {
  sac = await startE2eSac();
  // A host to put under maintenance.
  await sac.ingest({ host: { hostname: 'RDS01', os_family: 'windows' }, occurred_at: new Date().toISOString() });
});
test.afterAll(async () => {
  await sac?.close();
});

test('an admin puts a host under maintenance: list, editor, badges on the dashboard and the host page, ended early', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/maintenance/i).click();
  await expect(page.getByRole('heading', { name: 'Maintenance windows' })).toBeVisible();
  await page.getByTestId('maintenance-new').click();
  const dialog = page.getByRole('dialog', { name: 'New window' });
  await dialog.locator('input[name="reason"]').fill('Monthly patching of the RD farm');
  await dialog.locator('textarea[name="hosts"]').fill('RDS01');
  await dialog.locator('textarea[name="types"]').fill('rdp.login');
  await app.screenshot('maintenance-editor');
  await page.getByTestId('maintenance-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Window saved' })).toBeVisible();
  const row = page.getByTestId('maintenance-table').locator('tbody tr').first();
  await expect(row).toContainText('In force');
  await expect(row).toContainText('rds01');
  await app.screenshotBothThemes('maintenance-list');

  await app.nav(/dashboard/i).click();
  await expect(page.getByTestId('maintenance-badge')).toContainText('1 maintenance window in force');
  await app.screenshot('dashboard-maintenance-badge');

  const hosts = await sac.api('GET', '/api/v1/hosts', { token: await sac.token('admin', 'Night-shift-watch-2026') });
  const host = hosts.body.items.find((h: { hostname: string }) => h.hostname === 'RDS01');
  await page.goto(`${sac.url}/hosts/${host.id}`);
  await expect(page.getByTestId('host-detail').getByTestId('maintenance-badge')).toHaveText(/Maintenance/);
  await app.screenshot('host-maintenance-badge');

  await app.nav(/maintenance/i).click();
  await page.getByTestId('maintenance-end').first().click();
  await page.getByRole('dialog').getByRole('button', { name: 'End now' }).click();
  await expect(row).toContainText('Ended');
  await app.nav(/dashboard/i).click();
  await expect(page.getByRole('heading', { name: 'Dashboard' })).toBeVisible();
  await expect(page.getByTestId('maintenance-badge')).toHaveCount(0);
});

test('a user enrols TOTP in the profile, gets a Telegram link code, and signs in with a code', async ({ page }) => {
  const admin = await sac.token('admin', 'Night-shift-watch-2026');
  const created = await sac.api('POST', '/api/v1/users', { token: admin, body: { username: 'anna', password: 'Kestrel-Orbit-58-Lantern', role: 'monitor' } });
  expect(created.status).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login('anna', 'Kestrel-Orbit-58-Lantern');
  await app.nav(/profile/i).click();
  await page.getByTestId('totp-setup').click();
  await expect(page.getByTestId('totp-qr')).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  const totp = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
  await page.getByTestId('telegram-link').click();
  await expect(page.getByTestId('telegram-link-command')).toHaveText(/^\/link [A-Z2-9]{10}$/);
  await app.screenshotBothThemes('profile-totp-enrol');
  await page.locator('input[name="totp-code"]').fill(totp.generate());
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
  await expect(page.getByTestId('profile-totp')).toContainText('On — 10 recovery codes left');
  await app.screenshot('profile-totp-on');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel(/username/i).fill('anna');
  await page.getByLabel(/password/i).fill('Kestrel-Orbit-58-Lantern');
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page.getByTestId('login-code-step')).toBeVisible();
  await page.getByLabel('Code').fill('000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('login-error')).toHaveText('Wrong or already used code.');
  await app.screenshot('login-code-step');
  // The code of the next time step: the one used to confirm cannot be used again.
  await page.getByLabel('Code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByTestId('current-user')).toContainText('anna');
});

test('admins edit the escalation policy and sign-in security in the settings (Russian)', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/admin/settings?category=escalation`);
  await page.getByTestId('language').first().selectOption('ru');
  await expect(page.locator('h2')).toHaveText('Эскалация');
  await page.locator('[data-field="policies.critical.on"]').check();
  await page.locator('[data-field="policies.critical.interval_minutes"]').fill('15');
  await page.locator('[data-field="policies.critical.max_repeats"]').fill('4');
  await page.locator('[data-severity="critical"] input[type="checkbox"][value="smtp"]').check();
  await page.locator('[data-field="policies.critical.final_emails"]').fill('oncall@example.org');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Эскалация' })).toBeVisible();
  await app.screenshot('settings-escalation-ru');
  const token = await sac.token('admin', 'Night-shift-watch-2026');
  const stored = await sac.api('GET', '/api/v1/settings/escalation', { token });
  expect(stored.body.values.policies.critical).toMatchObject({ interval_minutes: 15, max_repeats: 4, final_channels: ['smtp'], final_emails: ['oncall@example.org'] });
  await app.nav(/обслуживание/i).click();
  await expect(page.getByRole('heading', { name: 'Окна обслуживания' })).toBeVisible();
  await app.screenshot('maintenance-list-ru');
  await page.getByTestId('language').first().selectOption('en');
});
