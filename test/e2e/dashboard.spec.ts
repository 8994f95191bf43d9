import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { agentTime } from './support/sac.js';
import { useSeededSac } from './support/seed.js';

const sac = useSeededSac();

test('dashboard counters move when an agent posts an event', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  const events = page.getByTestId('stat-events').locator('.value');
  await expect(events).toHaveText(/^\d+$/);
  const before = Number(await events.textContent());
  expect(before).toBeGreaterThan(0);
  await expect(page.getByTestId('live-status')).toHaveText(/live/i);
  await app.screenshotBothThemes('dashboard');

  await sac.ingest({ occurred_at: agentTime(0), type: 'auth.account.locked', severity: 'high', title: 'Account locked: j.doe', details: { user: 'j.doe', domain: 'CORP', generated_by: 'agent' } });
  // The stream reports the event; the dashboard reloads its summary without a page reload.
  await expect(events).toHaveText(String(before + 1));
  await expect(page.getByTestId('recent-events')).toContainText('Account locked: j.doe');
});
