import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();
const MONITOR_PASSWORD = 'Evening-shift-watch-2026';

/** A local git repository whose newest release tag is v1.4.2 (the daemon reads absolute paths). */
function tagRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sac-e2e-git-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '--quiet');
  git('-c', 'user.name=e2e', '-c', 'user.email=e2e@example.test', 'commit', '--allow-empty', '-m', 'first', '--quiet');
  git('tag', 'v1.4.2');
  return dir;
}

async function noSidewaysScroll(page: Page) {
  expect(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
}

async function settingsOf(category: string) {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  return (await sac.api('GET', `/api/v1/settings/${category}`, { token })).body;
}

test('settings: help for every field in both languages; git repositories edited as rows, each tested', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/settings?category=git_repos');
  await expect(page.getByTestId('category-help')).toContainText('one per product');
  await expect(page.locator('[data-help="refresh_minutes"]')).toHaveText('How often each repository is read for a new version.');
  await expect(page.getByTestId('git-repos')).toContainText('No repository yet');

  await page.getByTestId('git-add').click();
  await page.locator('[data-field="repos.0.product"]').fill('ssh-monitor');
  await page.locator('[data-field="repos.0.url"]').fill(tagRepo());
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('git-test-0')).toBeVisible();
  expect((await settingsOf('git_repos')).values.repos).toMatchObject([{ product: 'ssh-monitor', version_from: 'tag', token: { set: false } }]);
  await page.getByTestId('git-test-0').click();
  await expect(page.getByTestId('git-test-result')).toHaveText(/1\.4\.2/);
  await app.screenshotBothThemes('settings-git-repos');

  // A second row with a duplicate product is refused in the form, then removed.
  await page.getByTestId('git-add').click();
  await page.locator('[data-field="repos.1.product"]').fill('ssh-monitor');
  await page.getByTestId('settings-save').click();
  await expect(page.locator('[data-row="1"]')).toContainText('Another row has this product.');
  await page.getByTestId('git-remove-1').click();
  await expect(page.locator('[data-row="1"]')).toHaveCount(0);

  await page.getByTestId('language').selectOption('ru');
  await expect(page.getByTestId('category-help')).toContainText('по одному на продукт');
  await expect(page.locator('[data-help="refresh_minutes"]')).toHaveText('Как часто каждый репозиторий проверяется на новую версию.');
  await expect(page.getByTestId('git-test-0')).toHaveText('Проверить');
  await app.screenshotBothThemes('settings-git-repos-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(page);
  await app.screenshot('phone-settings-git-repos-ru');
  await page.getByTestId('language').selectOption('en');
});

test('settings: the SSH key is a write-only text area, known_hosts a text area, escalation a form', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/settings?category=ssh_admin');
  const key = page.locator('textarea[data-field="private_key"]');
  await expect(key).toHaveAttribute('placeholder', 'not set');
  await key.fill('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----');
  const hosts = 'web-01 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAb\nweb-02 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAc';
  await page.locator('textarea[data-field="known_hosts"]').fill(hosts);
  await page.getByTestId('settings-save').click();
  await expect(key).toHaveAttribute('placeholder', 'set — type to replace');
  await expect(key).toHaveValue('');
  await expect(page.locator('textarea[data-field="known_hosts"]')).toHaveValue(hosts);
  const ssh = await settingsOf('ssh_admin');
  expect(ssh.values).toMatchObject({ private_key: { set: true }, known_hosts: hosts });
  expect(JSON.stringify(ssh)).not.toContain('b3BlbnNzaC1rZXktdjEAAAAA');
  await app.screenshotBothThemes('settings-ssh-admin');

  await app.open('/admin/settings?category=escalation');
  await page.locator('[data-field="policies.critical.on"]').check();
  await page.locator('[data-field="policies.critical.interval_minutes"]').fill('15');
  await page.locator('[data-field="policies.critical.final_emails"]').fill('not-an-address');
  await page.getByTestId('settings-save').click();
  await expect(page.locator('[data-severity="critical"]').getByRole('alert')).toBeVisible();
  await page.locator('[data-field="policies.critical.final_emails"]').fill('duty@example.test');
  await page.getByTestId('settings-save').click();
  await expect.poll(async () => (await settingsOf('escalation')).values.policies).toEqual({
    critical: { interval_minutes: 15, max_repeats: 3, final_channels: [], final_emails: ['duty@example.test'], group_ids: [] },
  });
  await app.screenshotBothThemes('settings-escalation');
});

test('the policy names enabled channels that cannot send, and Deliveries says when nothing can be delivered', async ({ page }) => {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const patch = async (category: string, body: unknown) => expect((await sac.api('PATCH', `/api/v1/settings/${category}`, { token, body })).status).toBe(200);
  // A configured webhook the policy leaves off, push with keys (generated on first start) but no subscriber, Telegram without a token.
  await patch('webhook', { url: 'http://127.0.0.1:9/hook' });
  await patch('notification_policy', { enabled_channels: ['push', 'telegram'] });
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/settings?category=notification_policy');
  await expect(page.getByTestId('channels-unconfigured')).toContainText('Push, Telegram');
  await app.screenshot('settings-policy-unconfigured');
  await app.open('/admin/deliveries');
  await expect(page.getByTestId('no-channel')).toContainText('nothing can be delivered');
  await page.getByTestId('language').selectOption('ru');
  await expect(page.getByTestId('no-channel')).toContainText('доставлять некуда');
  await app.screenshotBothThemes('deliveries-no-channel-ru');
  await page.getByTestId('language').selectOption('en');

  // The policy turns the webhook on: something can be delivered, the warning goes.
  await patch('notification_policy', { enabled_channels: ['push', 'telegram', 'webhook'] });
  await page.reload();
  await expect(page.locator('h1')).toHaveText('Notification deliveries');
  await expect(page.getByText('Nothing here yet.').or(page.getByTestId('deliveries-table'))).toBeVisible();
  await expect(page.getByTestId('no-channel')).toHaveCount(0);
  await app.open('/admin/settings?category=notification_policy');
  await expect(page.getByTestId('channels-unconfigured')).toContainText('Push, Telegram');
  await expect(page.getByTestId('channels-unconfigured')).not.toContainText('Webhook');
});

test('users show their last sign-in; the audit log pages with a total and names actions and targets', async ({ page }) => {
  const token = await sac.token('admin', ADMIN_PASSWORD);
  const created = await sac.api('POST', '/api/v1/users', { token, body: { username: 'evening-officer', password: MONITOR_PASSWORD, role: 'monitor' } });
  expect(created.status).toBe(201);
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/users');
  const row = (name: string) => page.locator('tr').filter({ hasText: name });
  await expect(row('evening-officer').getByTestId('last-sign-in')).toHaveText('never');
  await sac.token('evening-officer', MONITOR_PASSWORD);
  await page.reload();
  await expect(row('evening-officer').getByTestId('last-sign-in')).toHaveText(/now|sec|min/);
  await app.screenshotBothThemes('users-last-sign-in');

  await app.open('/admin/audit');
  await expect(page.getByTestId('audit-total')).toHaveText(/^\d+ of \d+$/);
  const [shown, total] = (await page.getByTestId('audit-total').textContent())!.split(' of ').map(Number);
  expect(shown).toBe(total);
  const created_row = page.getByTestId('audit-table').locator('tr[data-action="user.created"]').filter({ hasText: 'evening-officer' });
  await expect(created_row).toContainText('User created');
  await expect(page.getByTestId('audit-table')).not.toContainText(created.body.id);
  await page.getByTestId('audit-outcome').selectOption('ok');
  await expect.poll(async () => Number((await page.getByTestId('audit-total').textContent())!.split(' of ')[1])).toBeLessThanOrEqual(total);
  await page.getByTestId('language').selectOption('ru');
  await expect(created_row).toContainText('Пользователь создан');
  await expect(page.getByTestId('audit-total')).toHaveText(/^\d+ из \d+$/);
  await app.screenshotBothThemes('audit-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(page);
  await app.screenshot('phone-audit-ru');
  await page.getByTestId('language').selectOption('en');
});

test('a daily report downloads as HTML and CSV, fits its frame and is dark in the dark theme', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/reports');
  await page.getByRole('button', { name: /generate now/i }).click();
  const frame = page.frameLocator('[data-testid="report-frame"]');
  await expect(frame.locator('body')).toContainText('RDS01');
  const csvDownload = page.waitForEvent('download');
  await page.getByTestId('report-csv').click();
  const csvFile = await csvDownload;
  expect(csvFile.suggestedFilename()).toMatch(/^sac-daily-report-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = Buffer.concat(await (await csvFile.createReadStream()).toArray()).toString('utf8').split('\r\n');
  expect(csv[0]).toBe('hostname,platform,successful_logins,failed_logins,active_bans,top_failed_ips,active_users,reported_at');
  expect(csv.some((l) => l.startsWith('RDS01,rdp,'))).toBe(true);
  await expect(page.getByTestId('report-print')).toBeEnabled();
  // Nothing of the report is cut: the frame's document is no wider than the frame.
  const overflow = await frame.locator('html').evaluate((html) => html.scrollWidth - html.ownerDocument.defaultView!.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await app.setTheme('dark');
  await expect.poll(() => frame.locator('body').evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).backgroundColor)).toBe('rgb(22, 28, 35)');
  await app.screenshotBothThemes('report-viewer');
  await page.getByTestId('language').selectOption('ru');
  await expect(page.getByTestId('report-csv')).toHaveText('Скачать CSV');
  await app.screenshotBothThemes('report-viewer-ru');
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(page);
  await app.screenshot('phone-report-viewer-ru');
  await page.getByTestId('language').selectOption('en');
});
