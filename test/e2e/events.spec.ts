import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

test('filters events by type prefix through the URL, marks the RD Gateway flap and opens the detail pane', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/events/i).click();
  const rows = page.getByTestId('events-table').locator('tbody tr');
  await expect(rows).toHaveCount(24);
  await app.screenshotBothThemes('events');

  await page.getByLabel('Type prefix').fill('rdg.connection');
  await page.getByLabel('Type prefix').press('Enter');
  await expect(page).toHaveURL(/[?&]type=rdg\.connection/);
  await expect(rows).toHaveCount(3);
  for (const type of await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))) expect(type).toMatch(/^rdg\.connection\./);
  // Both events of the 302/303 pair 4.5 s apart carry the flap mark; the later failure does not.
  await expect(page.locator('tr[data-type="rdg.connection.success"] [data-testid="flap"]')).toBeVisible();
  await expect(page.locator('tr[data-type="rdg.connection.disconnected"] [data-testid="flap"]')).toBeVisible();
  await expect(page.locator('tr[data-type="rdg.connection.failed"] [data-testid="flap"]')).toHaveCount(0);

  // The filter survives a reload (it lives in the URL) and a prefix that is not at a dot boundary matches nothing else.
  await page.reload();
  await expect(rows).toHaveCount(3);
  await page.goto(`${sac.url}/events?type=rdp.login`);
  await expect(rows).toHaveCount(3);
  for (const type of await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))) expect(type).toMatch(/^rdp\.login\./);

  await rows.filter({ hasText: 'RDP login failed' }).first().click();
  const detail = page.getByTestId('event-detail');
  await expect(detail).toContainText('rdp.login.failed');
  await expect(page.getByTestId('event-details-json')).toContainText('"ip_address": "203.0.113.45"');
  await app.screenshotBothThemes('events-detail');

  const download = page.waitForEvent('download');
  await page.getByTestId('export-csv').click();
  const file = await download;
  const csv = await (await file.createReadStream()).toArray();
  const lines = Buffer.concat(csv).toString('utf8').trim().split('\r\n');
  expect(lines[0]).toContain('occurred_at,received_at,severity,hostname,type');
  expect(lines).toHaveLength(4);
});

test('shows the actor user and the agent version of each event in the list', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/events/i).click();
  const table = page.getByTestId('events-table');
  await expect(table.getByRole('columnheader', { name: 'User' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Agent' })).toBeVisible();
  const headers = await table.locator('thead th').allTextContents();
  const cells = async (type: string) => {
    const texts = await table.locator(`tbody tr[data-type="${type}"]`).first().locator('td').allTextContents();
    return { user: texts[headers.indexOf('User')].trim(), agent: texts[headers.indexOf('Agent')].trim() };
  };
  // The actor of a shadowing event is the shadower; a Linux event carries ssh-monitor's version.
  expect(await cells('rdp.shadow.control.started')).toEqual({ user: 'CONTOSO\\admin', agent: '2.1.7-SAC' });
  expect(await cells('privilege.sudo.command')).toEqual({ user: 'deploy', agent: '1.1.2-ipset' });
});
