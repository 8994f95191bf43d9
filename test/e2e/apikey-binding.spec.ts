import { expect, test } from '@playwright/test';
import { buildEvent } from '../helpers/events.js';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

/** Posts one event with `key` as an agent would; the daemon's status. */
async function send(key: string, overrides: Parameters<typeof buildEvent>[0]): Promise<number> {
  const res = await fetch(`${sac.url}/api/v1/events`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(buildEvent(overrides)),
  });
  return res.status;
}

test('API keys bound to a host or an agent installation: created from the console, listed, mismatches refused or flagged and shown', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/api keys/i).click();

  async function createKey(label: string, bind: (dialog: ReturnType<typeof page.getByRole>) => Promise<void>): Promise<string> {
    await page.getByRole('button', { name: /new key/i }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Label').fill(label);
    await bind(dialog);
    await dialog.getByRole('button', { name: 'Create' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!.trim();
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    return key;
  }

  // Bound to a host picked from the ones that reported; an event from another host is accepted but flagged.
  const hostKey = await createKey('RDS01 only', async (dialog) => {
    await dialog.getByLabel('One host').check();
    await expect(dialog.getByTestId('bind-host').locator('option', { hasText: 'RDS01' })).toHaveCount(1);
    await dialog.getByTestId('bind-host').selectOption('RDS01');
    await dialog.getByLabel(/accept it, but flag it/i).check();
    await app.screenshot('api-key-bind-host-dialog');
  });
  // Bound to one agent installation; events from any other are refused.
  const instance = '0f5b8c1e-2d34-4a7b-9e61-5c3a7d9b2e40';
  const instanceKey = await createKey('one installation', async (dialog) => {
    await dialog.getByLabel(/one agent installation/i).check();
    await dialog.getByTestId('bind-instance').fill(instance);
    await expect(dialog.getByLabel(/refuse it \(403\)/i)).toBeChecked();
  });

  expect(await send(hostKey, { host: { hostname: 'RDS01' } })).toBe(201);
  expect(await send(hostKey, { host: { hostname: 'intruder-02' } })).toBe(201);
  // Its own host: SAC refuses an installation-bound key writing as a host known to run another installation.
  const kiosk = { hostname: 'WS-KIOSK-07' };
  expect(await send(instanceKey, { host: kiosk, source: { agent_instance_id: instance } })).toBe(201);
  expect(await send(instanceKey, { host: kiosk, source: { agent_instance_id: '11111111-2222-4333-8444-555555555555' } })).toBe(403);

  await page.reload();
  const row = (label: string) => page.locator('tbody tr', { hasText: label });
  await expect(row('RDS01 only').getByTestId('key-binding')).toContainText(/Host: rds01/i);
  await expect(row('RDS01 only').getByTestId('key-binding')).toContainText('flags others');
  await expect(row('RDS01 only').getByTestId('key-mismatches')).toContainText('1 flagged');
  await expect(row('RDS01 only').getByTestId('key-mismatches')).toContainText('last: intruder-02');
  await expect(row('one installation').getByTestId('key-binding')).toContainText(instance);
  await expect(row('one installation').getByTestId('key-binding')).toContainText('refuses others');
  await expect(row('one installation').getByTestId('key-mismatches')).toContainText('1 refused');
  await expect(row('one installation').getByTestId('key-mismatches')).toContainText('last: 11111111-2222-4333-8444-555555555555');
  await expect(page.locator('tbody tr', { hasText: /bootstrap|first/i }).first().getByTestId('key-binding')).toContainText('Any host');
  await app.screenshotBothThemes('api-keys-bound');

  await page.getByTestId('language').selectOption('ru');
  await expect(page.locator('h1')).toHaveText('API-ключи агентов');
  await expect(row('RDS01 only').getByTestId('key-mismatches')).toContainText('отмечено: 1');
  await expect(row('one installation').getByTestId('key-binding')).toContainText('чужие отклоняет');
  await app.screenshot('api-keys-bound-ru');
  await page.getByRole('button', { name: /новый ключ/i }).click();
  await page.getByRole('dialog').getByLabel('Одному хосту').check();
  await app.screenshot('api-key-bind-host-dialog-ru');
  await page.getByTestId('language').selectOption('en');
});
