import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startPushPeer, type PushPeer } from '../peers/push.peer.js';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

const SHOTS = path.resolve(import.meta.dirname, '../../test-results/screenshots');
const PHONE = { width: 390, height: 844 };

let sac: E2eSac;
let push: PushPeer;

test.beforeAll(async () => {
  push = await startPushPeer();
  sac = await startE2eSac({ SAC_NOTIFY_POLL_MS: '50', SAC_NOTIFY_RETRY_BASE_MS: '100', SAC_PUSH_ALLOW_LOOPBACK: 'true' });
});
test.afterAll(async () => {
  await sac?.close();
  await push?.close();
});

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/**
 * A phone-sized Chromium. Headless Chromium has no push service to subscribe with, so
 * `pushManager.subscribe()` answers the loopback push service's subscription (what a real
 * browser would get from its vendor's service); SAC then really encrypts and sends to it.
 */
async function phone(browser: import('@playwright/test').Browser, subscription: PushPeer['subscription']): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: PHONE,
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
    userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  });
  await context.grantPermissions(['notifications'], { origin: sac.url });
  await context.addInitScript((sub) => {
    const fake = { endpoint: sub.endpoint, options: { applicationServerKey: null }, toJSON: () => ({ endpoint: sub.endpoint, keys: sub.keys }), unsubscribe: async () => true };
    const pushManager = (globalThis as any).PushManager.prototype;
    pushManager.subscribe = async () => fake;
    pushManager.getSubscription = async () => null;
  }, subscription);
  return context;
}

test('a phone enrolls with a code, gets the pushed problem, acknowledges it; a revoked phone cannot refresh', async ({ browser, page }) => {
  const admin = await sac.token('admin', ADMIN_PASSWORD);
  const created = await sac.api('POST', '/api/v1/users', { token: admin, body: { username: 'oncall', password: 'Pager-duty-night-77', role: 'monitor' } });
  expect(created.status).toBe(201);

  // The admin issues a code in the console: shown once, with a QR code of the enrollment link.
  const console_ = new ConsolePage(page, sac.url);
  await console_.login();
  await page.goto(`${sac.url}/admin/devices`);
  await page.getByRole('button', { name: /Issue enrollment code/ }).click();
  await page.getByRole('dialog').getByRole('combobox').selectOption({ label: 'oncall' });
  await page.getByRole('button', { name: 'Issue code' }).click();
  const code = (await page.getByTestId('enroll-code').textContent())!.trim();
  expect(code).toMatch(/^[2-9A-HJKMNP-Z]{5}-[2-9A-HJKMNP-Z]{5}$/);
  await expect(page.getByTestId('enroll-qr')).toBeVisible();
  await shot(page, 'devices-issue-code');
  await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();

  // The phone: enroll by typing the code.
  const ctx = await phone(browser, push.subscription);
  const m = await ctx.newPage();
  await m.goto(`${sac.url}/m/enroll`);
  await expect(m.getByRole('heading', { name: 'Enroll this phone' })).toBeVisible();
  await m.getByLabel('Enrollment code').fill(code.toLowerCase());
  await m.getByLabel('Device name').fill('On-call Pixel');
  await shot(m, 'mobile-enroll');
  await m.getByRole('button', { name: 'Enroll' }).click();
  await expect(m.getByTestId('mobile-user')).toHaveText('oncall');
  await expect(m).toHaveURL(/\/m\/?$/);
  // The refresh token lives in IndexedDB.
  const stored = await m.evaluate(
    () =>
      new Promise<string | null>((resolve) => {
        const req = (globalThis as any).indexedDB.open('sac-mobile');
        req.onsuccess = () => {
          const get = req.result.transaction('kv').objectStore('kv').get('refresh_token');
          get.onsuccess = () => resolve((get.result as string | undefined) ?? null);
        };
      }),
  );
  expect(stored).toMatch(/^sacr_/);

  // Notifications on: the subscription is registered for this device.
  const registered = m.waitForResponse((r) => r.url().endsWith('/api/v1/mobile/push') && r.request().method() === 'PUT');
  await m.getByRole('button', { name: 'Turn on notifications' }).click();
  expect((await registered).status()).toBe(200);
  await expect(m.getByRole('button', { name: 'Turn on notifications' })).toHaveCount(0);
  const swReady = await m.evaluate(async () => (await (globalThis as any).navigator.serviceWorker.ready).active?.scriptURL ?? null);
  expect(swReady).toBe(`${sac.url}/sw.js`);

  // An alert: SAC encrypts the push for the device and sends it to the loopback push service.
  await sac.ingest({ type: 'auth.account.locked', severity: 'high', title: 'Account locked: j.doe', host: { hostname: 'DC01' } });
  await expect.poll(() => push.deliveries.filter((d) => d.payload.data?.kind === 'problem').length, { timeout: 15_000 }).toBe(1);
  const delivery = push.deliveries.find((d) => d.payload.data?.kind === 'problem')!;
  expect(delivery.vapidValid).toBe(true);
  expect(delivery.payload.data.url).toMatch(/^\/problems\/[\w-]+$/);
  expect(delivery.payload.actions).toEqual([{ action: 'acknowledge', title: 'Acknowledge' }]);

  // The push service's delivery to the browser: headless Chromium has none, so the payload SAC
  // sent is handed to the service worker's push event over CDP.
  const cdp = await ctx.newCDPSession(m);
  const registrationId = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const reg = registrations.find((r) => r.scopeURL === `${sac.url}/` && !r.isDeleted);
      if (reg) resolve(reg.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.deliverPushMessage', { origin: sac.url, registrationId: await registrationId, data: JSON.stringify(delivery.payload) });
  await expect(m.getByTestId('push-banner')).toHaveText(`New alert: ${delivery.payload.title}`);
  const shown = await m.evaluate(async () =>
    (await (await (globalThis as any).navigator.serviceWorker.ready).getNotifications()).map((n: { title: string; body: string; data: unknown }) => ({ title: n.title, body: n.body, data: n.data as { url: string } })),
  );
  expect(shown).toHaveLength(1);
  expect(shown[0].title).toBe(delivery.payload.title);
  expect(shown[0].body).toContain('Account locked: j.doe');
  expect(shown[0].data.url).toBe(delivery.payload.data.url);
  await expect(m.getByTestId('open-problems')).toHaveText('1');
  await shot(m, 'mobile-dashboard');

  // Open the problem and acknowledge it.
  await m.getByRole('link', { name: 'Problems' }).click();
  await shot(m, 'mobile-problems');
  await m.getByRole('link', { name: /Account locked: j\.doe/ }).click();
  await expect(m.getByTestId('problem-status')).toHaveText('Open');
  await m.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(m.getByTestId('problem-status')).toHaveText('Acknowledged');
  await shot(m, 'mobile-problem');
  const problemId = delivery.payload.data.url.split('/').pop();
  const after = await sac.api('GET', `/api/v1/problems/${problemId}`, { token: admin });
  expect(after.body).toMatchObject({ status: 'acknowledged', acknowledged_by: 'oncall' });

  await m.getByRole('link', { name: 'Events' }).click();
  await expect(m.getByRole('link', { name: /Account locked: j\.doe/ })).toBeVisible();
  await shot(m, 'mobile-events');

  // The service worker cached the shell and build files, never an API answer.
  const cached = await m.evaluate(async () => {
    const urls: string[] = [];
    const cacheStorage = (globalThis as any).caches;
    for (const name of await cacheStorage.keys()) for (const req of await (await cacheStorage.open(name)).keys()) urls.push(new URL(req.url).pathname);
    return urls;
  });
  expect(cached).toContain('/');
  expect(cached.some((u) => u.startsWith('/assets/'))).toBe(true);
  expect(cached.filter((u) => /^\/(api|trpc|problems|events)\b/.test(u))).toEqual([]);

  // "Acknowledge" on a notification opens the problem with ?action=acknowledge: it is acknowledged at once.
  await sac.ingest({ type: 'auth.account.locked', severity: 'high', title: 'Account locked: a.smith', host: { hostname: 'DC02' } });
  await expect.poll(() => push.deliveries.filter((d) => d.payload.data?.kind === 'problem').length, { timeout: 15_000 }).toBe(2);
  const second = push.deliveries.filter((d) => d.payload.data?.kind === 'problem')[1];
  await m.goto(`${sac.url}/m${second.payload.data.url}?action=acknowledge`);
  await expect(m.getByTestId('problem-status')).toHaveText('Acknowledged');
  await expect(m).toHaveURL(new RegExp(`/m${second.payload.data.url}$`));

  // The admin revokes the phone in the console; its next refresh fails and it is sent to enrollment.
  await page.goto(`${sac.url}/admin/devices`);
  const row = page.locator('tr[data-device="On-call Pixel"]');
  await expect(row).toContainText('Enrolled');
  await expect(row).toContainText(/android · \d/);
  await shot(page, 'devices-list');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toContainText('Revoked');

  const refreshed = m.waitForResponse((r) => r.url().endsWith('/api/v1/mobile/token'));
  await m.reload();
  expect((await refreshed).status()).toBe(401);
  await expect(m.getByRole('heading', { name: 'Enroll this phone' })).toBeVisible();
  await expect(m.getByText('This device was signed out')).toBeVisible();

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await expect(row).toHaveCount(0);
  await ctx.close();
});

test('the web build is installable: manifest, icons of the declared sizes, manifest link', async ({ request }) => {
  const manifest = await (await request.get(`${sac.url}/manifest.webmanifest`)).json();
  expect(manifest).toMatchObject({ display: 'standalone', start_url: './m/' });
  for (const icon of manifest.icons as { src: string; sizes: string }[]) {
    const res = await request.get(`${sac.url}/${icon.src}`);
    expect(res.status()).toBe(200);
    const png = await res.body();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(Number(icon.sizes.split('x')[0]));
  }
  const html = await (await request.get(`${sac.url}/`)).text();
  expect(html).toContain('rel="manifest"');
});

test('on a phone, signing in with username and password opens the same mobile screens', async ({ browser }) => {
  const ctx = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const m = await ctx.newPage();
  await m.goto(`${sac.url}/m/`);
  await expect(m.getByRole('heading', { name: 'Enroll this phone' })).toBeVisible();
  await m.getByRole('link', { name: 'Sign in with username and password instead' }).click();
  await m.getByLabel(/username/i).fill('admin');
  await m.getByLabel(/password/i).fill(ADMIN_PASSWORD);
  await m.getByRole('button', { name: /sign in/i }).click();
  await expect(m.getByTestId('mobile-user')).toHaveText('admin');
  await expect(m).toHaveURL(/\/m\/$/);
  await m.getByRole('link', { name: 'Problems' }).click();
  await expect(m.getByRole('link', { name: /Account locked: j\.doe/ })).toBeVisible();
  // No device session: nothing to forget.
  await expect(m.getByRole('button', { name: 'Forget this device' })).toHaveCount(0);
  await ctx.close();
});
