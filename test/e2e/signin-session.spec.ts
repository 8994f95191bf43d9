import { expect, test, type Page } from '@playwright/test';
import { ConsolePage } from './support/console.js';
import { ADMIN_PASSWORD, startE2eSac, type E2eSac } from './support/sac.js';

let sac: E2eSac;
let admin: string;
test.beforeAll(async () => {
  sac = await startE2eSac();
  admin = await sac.token('admin', ADMIN_PASSWORD);
});
test.afterAll(async () => {
  await sac?.close();
});

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1440, height: 900 };

async function createUser(username: string): Promise<void> {
  expect((await sac.api('POST', '/api/v1/users', { token: admin, body: { username, password: 'Blue-lantern-river-42', role: 'monitor' } })).status).toBe(201);
}

/** Three wrong passwords (the default limit) lock the name. */
async function lockOut(username: string): Promise<void> {
  for (let i = 0; i < 3; i++) await sac.api('POST', '/api/v1/auth/login', { body: { username, password: `wrong-password-${i}` } });
}

/** Screenshots of the current screen at 1440 and 390 px in both themes, named `<name>-<width>-<theme>`. */
async function shots(app: ConsolePage, page: Page, name: string) {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await app.screenshotBothThemes(`${name}-${size.width}`);
  }
  await page.setViewportSize(DESKTOP);
}

test('a link opened in a new tab is signed in with the same session; a write there passes the CSRF check; signing out ends it in every tab', async ({ page, context }) => {
  await createUser('night-ops');
  await lockOut('night-ops');
  const app = new ConsolePage(page, sac.url);
  await app.login('admin', ADMIN_PASSWORD);
  const cookie = (await context.cookies()).find((c) => c.name === 'sac_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
  expect(await page.evaluate('document.cookie')).not.toContain('sac_session');

  // A shared pivot link, opened in another tab of the same browser.
  const pivot = await context.newPage();
  await pivot.goto(`${sac.url}/events?type=rdp.login`);
  await expect(pivot.getByTestId('current-user')).toContainText('admin');
  await expect(pivot).toHaveURL(/\/events\?type=rdp\.login/);

  const users = await context.newPage();
  const usersApp = new ConsolePage(users, sac.url);
  await users.goto(`${sac.url}/admin/users`);
  const row = users.locator('tr[data-user="night-ops"]');
  await expect(row.getByTestId('user-locked')).toContainText('Locked until');
  for (const language of ['en', 'ru'] as const) {
    await users.getByTestId('language').selectOption(language);
    await expect(row.getByTestId('user-locked')).toBeVisible();
    await shots(usersApp, users, `users-locked-${language}`);
  }
  await users.getByTestId('language').selectOption('en');
  await row.getByRole('button', { name: 'Unlock' }).click();
  await users.getByRole('dialog').getByRole('button', { name: 'Unlock' }).click();
  await expect(users.getByRole('status').filter({ hasText: 'Sign-in unlocked' })).toBeVisible();
  await expect(row.getByTestId('user-locked')).toHaveCount(0);
  await expect(row).toContainText('Active');
  const audit = await sac.api('GET', '/api/v1/audit?action=user.unlocked', { token: admin });
  expect(audit.body.entries[0]).toMatchObject({ actor_username: 'admin', details: { username: 'night-ops' } });

  await users.getByRole('button', { name: /sign out/i }).click();
  await expect(users).toHaveURL(/\/login/);
  await page.reload();
  await expect(page).toHaveURL(/\/login/);
});

test('the sign-in page warns before the lock, locks only that name, and another name signs in at once', async ({ page }) => {
  await createUser('day-ops');
  const app = new ConsolePage(page, sac.url);
  await app.open('/login');
  const error = page.getByTestId('login-error');
  const submit = page.getByRole('button', { name: /sign in|войти/i });
  await page.getByLabel(/username/i).fill('day-ops');
  await page.getByLabel(/password/i).fill('wrong-password-1');
  await submit.click();
  await expect(error).toHaveText('Wrong username or password. 2 attempts left before this user name is locked.');
  await page.getByLabel(/password/i).fill('wrong-password-2');
  await submit.click();
  await expect(error).toHaveText('Wrong username or password. 1 attempt left before this user name is locked.');
  await shots(app, page, 'signin-attempt-left-en');
  await page.getByTestId('language').selectOption('ru');
  await page.getByLabel(/пароль/i).fill('wrong-password-3');
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(error).toHaveText('Неверное имя пользователя или пароль. Вход под этим именем временно заблокирован.');
  await page.getByLabel(/пароль/i).fill('Blue-lantern-river-42');
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(error).toHaveText(/Слишком много неудачных попыток\. Повторите через \d+ мин/);
  await expect(page.getByRole('button', { name: 'Войти' })).toBeDisabled();
  await shots(app, page, 'signin-locked-ru');

  await page.getByLabel(/имя пользователя/i).fill('admin');
  await expect(error).toHaveCount(0);
  await page.getByLabel(/пароль/i).fill(ADMIN_PASSWORD);
  await expect(page.getByRole('button', { name: 'Войти' })).toBeEnabled();
  await page.getByRole('button', { name: 'Войти' }).click();
  await expect(page.getByTestId('current-user')).toContainText('admin');

  // The Russian warning, for the screenshots of the other language.
  await page.getByRole('button', { name: /выйти/i }).click();
  await createUser('eve-ops');
  await page.getByLabel(/имя пользователя/i).fill('eve-ops');
  for (const [i, text] of [[1, 'осталось 2 попытки'], [2, 'осталась 1 попытка']] as const) {
    await page.getByLabel(/пароль/i).fill(`wrong-password-${i}`);
    await page.getByRole('button', { name: 'Войти' }).click();
    await expect(error).toContainText(text);
  }
  await shots(app, page, 'signin-attempt-left-ru');
});
