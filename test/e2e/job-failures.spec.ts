import { expect, test } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;
test.beforeAll(async () => {
  // The report job checks often, so the broken zone fails it a few times before the page opens.
  sac = await startE2eSac({ SAC_REPORT_CHECK_SECONDS: '0.2' });
  // A report time zone saved before the daemon checked it (the service now refuses it on save).
  await sac.sac.store.settings.put({
    key: 'settings.notification_policy',
    value: JSON.stringify({ report_timezone: 'Mars/Olympus' }),
    updated_ms: Date.now(),
    updated_by: 'admin',
  });
  sac.sac.settings.changedElsewhere('notification_policy');
  await expect
    .poll(async () => ((await sac.api('GET', '/health')).body.jobs as { job: string; consecutive_failures: number }[]).find((j) => j.job === 'daily_report')?.consecutive_failures ?? 0)
    .toBeGreaterThanOrEqual(2);
});
test.afterAll(async () => {
  await sac?.close();
});

test('a daily report job that keeps failing shows on the Reports screen with its count, start and message, in both languages', async ({ page }) => {
  const app = new ConsolePage(page, sac.url);
  await app.login();
  await app.open('/admin/reports');
  const alert = page.getByTestId('job-failing');
  await expect(alert).toContainText(/The daily report job has failed \d+ times since .*:/);
  await expect(alert).toContainText(/Invalid time zone/i);
  await app.screenshotBothThemes('reports-job-failing-1440');
  await page.getByTestId('language').selectOption('ru');
  await expect(alert).toContainText(/Задача «ежедневный отчёт» завершилась ошибкой \d+ раза? с/);
  await app.screenshot('reports-job-failing-ru-1440');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(alert).toBeVisible();
  await app.screenshot('reports-job-failing-ru-390');
});
