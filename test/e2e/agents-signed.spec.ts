import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { startE2eSac, type E2eSac } from './support/sac.js';

const REASON = 'The release tag v2.1.9-SAC is not signed by an allowed signer: error: no signature found';

let sac: E2eSac;
test.beforeAll(async () => {
  sac = await startE2eSac();
  // What a read under require_signed_tags records for an unsigned newer tag: the last signed version stays.
  await sac.sac.store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: '2.1.8-SAC', commit: 'a'.repeat(40), checked_ms: Date.now(), error: null, error_reason: null });
  await sac.sac.store.agentVersions.record({ product: 'rdp-login-monitor', latest_version: null, commit: null, checked_ms: Date.now(), error: REASON, error_reason: 'unsigned_release' });
});
test.afterAll(async () => {
  await sac?.close();
});

test('the Agents page names a release refused for its signature, with the reason', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.nav(/agents/i).click();
  const product = page.locator('article.product[data-product="rdp-login-monitor"]');
  await expect(product.getByTestId('version-unsigned')).toHaveText(/Release refused: not signed by an allowed signer/);
  await expect(product.getByTestId('version-error')).toHaveText(REASON);
  await expect(product.getByTestId('version-latest')).toHaveText('2.1.8-SAC');
  await page.screenshot({ path: test.info().outputPath('agents-unsigned-release.png') });
});
