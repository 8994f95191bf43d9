import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { useSeededSac } from './support/seed.js';

// Behind a reverse proxy SAC may live under a path prefix (SAC_BASE_PATH): the console must load
// its assets, route and call the API under it.
const sac = useSeededSac({ SAC_BASE_PATH: '/sac' });

test('works under SAC_BASE_PATH=/sac: assets, client routes, tRPC and the stream', async ({ page }) => {
  const calls: string[] = [];
  page.on('request', (r) => calls.push(new URL(r.url()).pathname));
  const app = new ConsolePage(page, `${sac.url}/sac`);
  await app.login();
  await expect(page).toHaveURL(`${sac.url}/sac/`);
  await expect(page.getByTestId('live-status')).toHaveText(/live/i);
  await app.nav(/events/i).click();
  await expect(page).toHaveURL(`${sac.url}/sac/events`);
  await expect(page.getByTestId('events-table').locator('tbody tr')).toHaveCount(24);
  await page.reload();
  await expect(page.getByTestId('events-table').locator('tbody tr')).toHaveCount(24);
  const api = calls.filter((p) => /\/(trpc|api)\//.test(p));
  expect(api.length).toBeGreaterThan(0);
  expect(api.filter((p) => !p.startsWith('/sac/'))).toEqual([]);
});
