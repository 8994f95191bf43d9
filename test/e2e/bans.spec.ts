import { expect, test } from '@playwright/test';
import { startSudoRecorder, type SudoRecorder } from '../peers/ipset-recorder.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const ATTACKER = '203.0.113.91';
const FROM_EVENT = '198.18.7.20';

let sac: E2eSac;
let sshd: SshdPeer;
let sudo: SudoRecorder;
let eventId = '';

const linux = (hostname: string, ipv4: string) => ({ source: { product: 'ssh-monitor' as const, product_version: '1.1.2-ipset' }, host: { hostname, os_family: 'linux' as const, ipv4, display_name: hostname } });

// The sshd peer creates local users and a sudoers file: root only (as in CI, after setup-test-deps).
test.skip(!sshdAvailable(), 'needs root, openssh-server and sudo');

test.beforeAll(async () => {
  sudo = startSudoRecorder();
  sshd = await startSshd({ sessionPath: sudo.sessionPath });
  sac = await startE2eSac();
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  const ssh = { username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts + sshd.knownHosts.replace('[127.0.0.1]', '[localhost]') };
  expect((await sac.api('PATCH', '/api/v1/settings/ssh_admin', { token: admin, body: ssh })).status).toBe(200);
  const ids: Record<string, string> = {};
  for (const [hostname, ipv4] of [['web-1', '10.9.0.1'], ['web-2', '10.9.0.2'], ['db-1', '10.9.0.3']] as const) {
    const e = await sac.ingest({ ...linux(hostname, ipv4), type: 'ssh.login.failed', category: 'auth', title: 'SSH login failed', details: { user: 'root', ip_address: FROM_EVENT } });
    ids[hostname] = (await sac.api('GET', `/api/v1/events/${e.event_id}`, { token: admin })).body.host_id;
    if (hostname === 'web-1') eventId = e.event_id;
  }
  // Two hosts pinned to the one sshd (by its address and by a name of it); db-1 is left unverified.
  for (const [hostname, address] of [['web-1', '127.0.0.1'], ['web-2', 'localhost']] as const) {
    expect((await sac.api('PUT', `/api/v1/hosts/${ids[hostname]}/action-address`, { token: admin, body: { address } })).status).toBe(200);
  }
  await sac.ingest({ ...linux('web-2', '10.9.0.2'), type: 'ssh.ip.banned', category: 'network', severity: 'high', title: 'SSH address banned', details: { ip_address: ATTACKER, ban_time: 3600 } });
});

test.afterAll(async () => {
  await sac?.close();
  await sshd?.stop();
  sudo?.stop([
    ['ssh_monitor_ban', ATTACKER],
    ['ssh_monitor_ban', FROM_EVENT],
  ]);
});

test('a host\'s ssh.ip.banned is proposed, applied on both sshd hosts from the Bans view, and unbanned', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.login();
  await app.nav(/ssh bans/i).click();
  await expect(page.getByRole('heading', { name: 'SSH bans' })).toBeVisible();
  const row = page.locator('[data-ban]').filter({ hasText: ATTACKER });
  await expect(row).toContainText('proposed');
  await app.screenshotBothThemes('bans-proposed');

  await row.getByTestId('ban-apply').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Ban', exact: true }).click();
  await expect(row).toContainText('active');
  await expect(row).toContainText('2 of 3 hosts');
  expect(sudo.calls().filter((l) => l.includes(`ipset add ssh_monitor_ban ${ATTACKER} `))).toHaveLength(2);
  if (sudo.kernel) expect(sudo.inSet('ssh_monitor_ban', ATTACKER)).toBe(true);
  await row.click();
  const hosts = page.getByTestId('ban-hosts');
  await expect(hosts.locator('[data-host="web-1"]')).toContainText('applied');
  await expect(hosts.locator('[data-host="web-2"]')).toContainText('applied');
  await expect(hosts.locator('[data-host="db-1"]')).toContainText('address unverified');
  await app.screenshotBothThemes('bans-applied');

  await page.setViewportSize({ width: 390, height: 844 });
  await app.screenshotBothThemes('bans-phone');
  await page.getByTestId('language').first().selectOption('ru');
  await expect(page.getByRole('heading', { name: 'Блокировки SSH' })).toBeVisible();
  await app.screenshot('bans-phone-ru');
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.screenshot('bans-ru');
  await page.getByTestId('language').first().selectOption('en');

  await row.getByTestId('ban-unban').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Unban' }).click();
  await expect(row).toContainText('unbanned');
  expect(sudo.calls().at(-1)).toContain(`ipset del ssh_monitor_ban ${ATTACKER} -exist`);
});

test('"Ban on all Linux hosts" from an event\'s detail', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await page.setViewportSize({ width: 1440, height: 900 });
  await app.login();
  await app.open(`/events?event=${eventId}`);
  const pane = page.getByTestId('event-detail');
  await expect(pane).toBeVisible();
  await app.screenshot('bans-event-detail');
  await pane.getByTestId('ban-everywhere').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Ban', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: `${FROM_EVENT} banned on 2 of 3 hosts` })).toBeVisible();
  await app.nav(/ssh bans/i).click();
  await expect(page.locator('[data-ban]').filter({ hasText: FROM_EVENT })).toContainText('active');
});
