import { expect, test, type Page } from '@playwright/test';
import { TestClock } from '../helpers/clock.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const DAY = 24 * 3600_000;
const MIN = 60_000;
/** Public addresses whose countries the shipped database knows. */
const DE = '185.220.101.1';
const BR = '200.160.2.3';
const US = '8.8.8.8';
const RU = '45.155.205.1';
const CN = '114.114.114.114';

let sac: E2eSac;
/** The daemon's time: real time moved forward through alice's 30 days of learning. */
const clock = new TestClock();
let token: string;

/** An RDP logon as the Windows agent sends it (4624 / 4625), `minutesAgo` before the daemon's now. */
function rdpLogin(hostname: string, outcome: 'failed' | 'success', minutesAgo: number, user: string, ip: string) {
  return sac.ingest({
    type: `rdp.login.${outcome}`,
    severity: outcome === 'failed' ? 'warning' : 'info',
    title: outcome === 'failed' ? `RDP login failed from ${ip}` : `RDP login of ${user} from ${ip}`,
    occurred_at: new Date(clock.now() - minutesAgo * MIN).toISOString(),
    source: { agent_instance_id: `agent-${hostname}` },
    host: { hostname, display_name: `${hostname} (10.0.0.9)` },
    details: { user, ip_address: ip, logon_type: 10, event_id_windows: outcome === 'failed' ? 4625 : 4624, generated_by: 'agent' },
  });
}

test.beforeAll(async () => {
  sac = await startE2eSac({}, clock);
  // alice works from Germany on two servers: one login a day (office hours around the test's hour) for the 30-day learning period.
  for (let day = 0; day <= 30; day++) {
    await rdpLogin(day % 3 === 0 ? 'RDS02' : 'RDS01', 'success', (day % 4) * 60, 'CORP\\alice', DE);
    clock.advance(DAY);
  }
  // Learnt: her first login from Brazil is new; half an hour later she is in the United States.
  await rdpLogin('RDS01', 'success', 40, 'alice@corp.example', BR);
  await rdpLogin('RDS02', 'success', 10, 'ALICE', US);
  // One address failing on four hosts; another failing three times, then getting in as bob.
  for (const [i, host] of ['RDS01', 'RDS02', 'WEB01', 'WEB02'].entries()) await rdpLogin(host, 'failed', 9 - i, 'administrator', RU);
  for (let i = 0; i < 3; i++) await rdpLogin('WEB01', 'failed', 8 - i, 'bob', CN);
  await rdpLogin('WEB01', 'success', 4, 'bob', CN);
  token = await sac.token('admin', ADMIN_PASSWORD);
});

test.afterAll(async () => {
  await sac?.close();
});

/** The console path of the problem a rule opened (the one whose evidence `pick` accepts). */
async function problemOf(rule: string, pick: (evidence: any) => boolean = () => true): Promise<string> {
  const list = await sac.api('GET', `/api/v1/problems?rule=${rule}`, { token });
  expect(list.status).toBe(200);
  for (const { id } of list.body.items as { id: string }[]) {
    const detail = await sac.api('GET', `/api/v1/problems/${id}`, { token });
    if (pick(detail.body.evidence)) return `/problems/${id}`;
  }
  throw new Error(`no ${rule} problem with that evidence`);
}

/** Phone screenshots of a page in both themes (on a phone a problem's pane covers the theme switch: it is set first). */
async function phoneShots(app: ConsolePage, path: string, name: string, shown: string) {
  await app.page.setViewportSize({ width: 390, height: 844 });
  for (const theme of ['light', 'dark'] as const) {
    await app.open('/');
    await app.setTheme(theme);
    await app.open(path);
    await app.page.getByTestId(shown).scrollIntoViewIfNeeded();
    await expect(app.page.getByTestId(shown)).toBeInViewport();
    await app.screenshot(name);
  }
  await app.page.setViewportSize({ width: 1440, height: 900 });
}

/** A console whose clock reads the daemon's (moved) time, signed in. */
async function signedIn(page: Page): Promise<ConsolePage> {
  await page.clock.setFixedTime(new Date(clock.now()));
  const app = new ConsolePage(page, sac.url);
  await app.login();
  return app;
}

test('a new source explains itself with the user’s baseline and opens the new address’s events', async ({ page }) => {
  const app = await signedIn(page);
  await app.open(await problemOf('new_source', (e) => e.new_country === 'BR'));
  const why = page.getByTestId('problem-why');
  await expect(why).toHaveAttribute('data-kind', 'new_source');
  await expect(why.getByTestId('why-lead')).toContainText('First login of alice from a source the baseline does not hold');
  await expect(why.getByTestId('why-new-country')).toBeVisible();
  await expect(why.getByTestId('baseline-countries')).toContainText('Germany');
  await expect(why.getByTestId('baseline-hosts')).toContainText('RDS01');
  await expect(why.getByTestId('login-hours').locator('.slot')).toHaveCount(24);
  await why.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('why-new-source-1440');

  await why.getByTestId('why-events').click();
  await expect(page).toHaveURL(/\/events\?ip=200\.160\.2\.3$/);
  await expect(page.locator('table.data tbody tr')).toHaveCount(1);
  await page.getByTestId('language').selectOption('ru');
  await phoneShots(app, await problemOf('new_source', (e) => e.new_country === 'BR'), 'why-new-source-ru-390', 'problem-why');
  await page.getByTestId('language').selectOption('en');
});

test('the user page shows the logins across hosts, their countries on the map and the baseline', async ({ page }) => {
  const app = await signedIn(page);
  await app.open(await problemOf('new_source', (e) => e.new_country === 'BR'));
  await page.getByTestId('problem-why').getByTestId('why-user').click();
  await expect(page).toHaveURL(/\/logins\/alice$/);
  const table = page.getByTestId('user-logins-table');
  // The logins of the last 30 days, newest first: the United States, Brazil, then 29 days from Germany.
  await expect(table.locator('tbody tr')).toHaveCount(31);
  await expect(table.locator('tbody tr').first()).toContainText('US');
  await expect(table.locator('tbody tr').nth(1)).toContainText('BR');
  await expect(page.getByTestId('user-login-map')).toBeVisible();
  await expect(page.getByTestId('learning-until')).toContainText('learnt');
  await app.screenshotBothThemes('user-logins-1440');

  await page.getByTestId('language').selectOption('ru');
  await expect(page.locator('h1')).toHaveText('Входы пользователя alice');
  await app.screenshot('user-logins-ru-1440');
  await phoneShots(app, '/logins/alice', 'user-logins-ru-390', 'user-baseline');
  await page.getByTestId('language').selectOption('en');
});

test('impossible travel shows both logins, the speed and both countries on the map', async ({ page }) => {
  const app = await signedIn(page);
  await app.open(await problemOf('impossible_travel'));
  const why = page.getByTestId('problem-why');
  await expect(why).toHaveAttribute('data-kind', 'impossible_travel');
  await expect(why.getByTestId('why-from')).toContainText(BR);
  await expect(why.getByTestId('why-to')).toContainText(US);
  await expect(why.getByTestId('why-speed')).toContainText('limit 900 km/h');
  await expect(why.getByTestId('why-map')).toBeVisible();
  await why.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('why-impossible-travel-1440');
  await page.getByTestId('language').selectOption('ru');
  await expect(why.getByTestId('why-speed')).toContainText('предел 900 км/ч');
  await app.screenshot('why-impossible-travel-ru-1440');
  await phoneShots(app, await problemOf('impossible_travel'), 'why-impossible-travel-ru-390', 'problem-why');
  await page.getByTestId('language').selectOption('en');
});

test('cross-host attacks name their hosts and open the address’s events; a user name in Events opens the user page', async ({ page }) => {
  const app = await signedIn(page);
  await app.open(await problemOf('distributed_bruteforce'));
  const why = page.getByTestId('problem-why');
  await expect(why.getByTestId('why-lead')).toHaveText(`${RU} failed on 4 hosts within 10 min`);
  await expect(why.getByTestId('why-hosts').locator('li')).toHaveCount(4);
  await why.scrollIntoViewIfNeeded();
  await app.screenshotBothThemes('why-distributed-1440');
  await why.getByTestId('why-events').click();
  await expect(page).toHaveURL(new RegExp(`/events\\?.*ip=${RU.replaceAll('.', '\\.')}`));
  await expect(page.locator('table.data tbody tr')).toHaveCount(4);

  const afterFailures = await problemOf('login_after_failures');
  await app.open(afterFailures);
  await expect(page.getByTestId('problem-why').getByTestId('why-hosts')).toContainText(/WEB01\s*3 failures/);
  await phoneShots(app, afterFailures, 'why-after-failures-390', 'problem-why');

  await app.open(`/events?ip=${CN}`);
  await page.getByTestId('user-link').first().click();
  await expect(page).toHaveURL(/\/logins\/bob$/);
  await expect(page.getByTestId('user-logins-table').locator('tbody tr')).toHaveCount(4);
  await expect(page.getByTestId('user-logins-table').locator('tbody tr[data-outcome="failure"]')).toHaveCount(3);
});
