import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { ADMIN_PASSWORD } from './sac.js';

const SHOTS = path.resolve(import.meta.dirname, '../../../test-results/screenshots');

/** Page object of the sign-in screen and the app shell. */
export class ConsolePage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  async open(p = '/') {
    await this.page.goto(`${this.baseUrl}${p}`);
  }

  async login(username = 'admin', password = ADMIN_PASSWORD) {
    await this.open('/login');
    await this.page.getByLabel(/username|имя пользователя/i).fill(username);
    await this.page.getByLabel(/password|пароль/i).fill(password);
    await this.page.getByRole('button', { name: /sign in|войти/i }).click();
    await expect(this.page.getByTestId('current-user')).toContainText(username);
  }

  nav(name: RegExp) {
    return this.page.getByRole('navigation').getByRole('link', { name });
  }

  async setTheme(theme: 'dark' | 'light') {
    const current = await this.page.locator('html').getAttribute('data-theme');
    if (current !== theme) await this.page.getByTestId('theme-toggle').first().click();
    await expect(this.page.locator('html')).toHaveAttribute('data-theme', theme);
  }

  /** Saves a full-page screenshot of the current screen as test-results/screenshots/<name>-<theme>.png. */
  async screenshot(name: string) {
    mkdirSync(SHOTS, { recursive: true });
    const theme = await this.page.locator('html').getAttribute('data-theme');
    await this.page.screenshot({ path: path.join(SHOTS, `${name}-${theme}.png`), fullPage: false });
  }

  /** Screenshots the current screen in both themes, leaving the theme as it was. */
  async screenshotBothThemes(name: string) {
    const start = (await this.page.locator('html').getAttribute('data-theme')) as 'dark' | 'light';
    for (const theme of [start, start === 'dark' ? 'light' : 'dark'] as const) {
      await this.setTheme(theme);
      await this.page.waitForTimeout(150);
      await this.screenshot(name);
    }
    await this.setTheme(start);
  }
}
