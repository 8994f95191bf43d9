import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;
test.beforeAll(async () => {
  sac = await startE2eSac();
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const linux = { os_family: 'linux' as const, display_name: undefined, ipv4: '10.0.1.10' };
  const ssh = { product: 'ssh-monitor' as const, product_version: '1.1.2-ipset' };
  // A week of an analyst's noise, as the agents send it: sudo on three web servers, gateway drops, one failed RDP login.
  for (const [i, host] of ['web-01', 'web-02', 'web-03'].entries()) {
    await sac.ingest({
      type: 'privilege.sudo.command',
      category: 'privilege',
      severity: 'warning',
      title: 'sudo by deploy',
      host: { hostname: host, ...linux },
      source: ssh,
      occurred_at: at(30 + i),
      details: { user: 'deploy', run_as: 'root', command: '/usr/bin/systemctl restart app' },
    });
  }
  for (const host of ['RDG01', 'RDG02']) {
    await sac.ingest({
      type: 'rdg.connection.failed',
      category: 'network',
      severity: 'warning',
      title: 'RD Gateway connection failed',
      host: { hostname: host },
      occurred_at: at(20),
      details: { user: 'CORP\\anna', external_ip: '198.51.100.23', internal_ip: '10.0.0.40', gateway_error_code: '23003' },
    });
  }
  await sac.ingest({ host: { hostname: 'RDS01' }, occurred_at: at(10) });
});
test.afterAll(async () => {
  await sac?.close();
});

test('Settings → Correlation: a choice per event type with the problems each opened this week, checked before it is saved', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await page.goto(`${sac.url}/admin/settings?category=correlation`);
  const editor = page.getByTestId('type-problems');
  // The defaults, each with what its types opened this week (counted ones open none of their own).
  await expect(editor.locator('tr[data-pattern="rdg.connection.failed"] select')).toHaveValue('count');
  await expect(editor.locator('tr[data-pattern="ssh.ip.banned"] select')).toHaveValue('count');
  await expect(editor.locator('tr[data-pattern="rdg.connection.failed"] [data-testid="type-opened"]')).toHaveText('0');
  await expect(page.getByTestId('host-activity-week')).toHaveText('2 host activity problems opened in 7 days');
  const unlisted = page.getByTestId('unlisted-types');
  await expect(unlisted.locator('li[data-type="privilege.sudo.command"]')).toContainText('3 problems');
  await expect(unlisted.locator('li[data-type="rdp.login.failed"]')).toContainText('1 problem');
  await app.screenshotBothThemes('settings-type-problems');

  // Sudo moves from the unlisted types into the table, with its week's count beside the choice.
  await page.getByTestId('type-add-privilege.sudo.command').click();
  const sudo = editor.locator('tr[data-pattern="privilege.sudo.command"]');
  await expect(sudo.locator('select')).toHaveValue('count');
  await expect(sudo.locator('[data-testid="type-opened"]')).toHaveText('3');
  await expect(unlisted.locator('li[data-type="privilege.sudo.command"]')).toHaveCount(0);
  await page.locator('[data-field="admin_users"]').fill('deploy');

  // A pattern that is no event type is refused beside its row, before any request.
  await page.getByTestId('add-type').click();
  await editor.locator('[data-field="type_problems.3.pattern"]').fill('RDP Login');
  await page.getByTestId('settings-save').click();
  await expect(editor.locator('tr[data-row="3"] [role="alert"]')).toContainText('must be an event type or dotted prefix');
  await editor.locator('[data-field="type_problems.3.pattern"]').fill('rdp.login.failed');
  await editor.locator('[data-field="type_problems.3.choice"]').selectOption('never');
  await page.getByTestId('settings-save').click();
  await expect(page.getByRole('status').filter({ hasText: 'Correlation saved' })).toBeVisible();

  const token = await sac.token('admin', ADMIN_PASSWORD);
  const stored = (await sac.api('GET', '/api/v1/settings/correlation', { token })).body.values;
  expect(stored).toMatchObject({
    type_problems: { 'rdg.connection.failed': 'count', 'ssh.ip.banned': 'count', 'privilege.sudo.command': 'count', 'rdp.login.failed': 'never' },
    admin_users: ['deploy'],
  });
  await page.reload();
  await expect(editor.locator('tr[data-pattern="rdp.login.failed"] select')).toHaveValue('never');
  await expect(editor.locator('tr[data-pattern="rdp.login.failed"] [data-testid="type-opened"]')).toHaveText('1');

  await page.setViewportSize({ width: 390, height: 844 });
  await editor.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('settings-type-problems-390');
  await page.getByTestId('language').selectOption('ru');
  await expect(page.getByTestId('host-activity-week')).toHaveText('За 7 дней открыто 2 проблемы активности хостов');
  await expect(editor.locator('tr[data-pattern="rdp.login.failed"] select option:checked')).toHaveText('Не открывать');
  await editor.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('settings-type-problems-390-ru');
  await page.setViewportSize({ width: 1440, height: 900 });
  await editor.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('settings-type-problems-ru');
  await page.getByTestId('language').selectOption('en');
});
