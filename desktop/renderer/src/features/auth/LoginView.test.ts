// @vitest-environment happy-dom
// @vitest-environment-options {"url": "http://127.0.0.1:8080/"}
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryHistory, createRouter } from 'vue-router';
import { createAppI18n } from '../../i18n';
import { renewDelayMs } from './auth.api';
import { useAuthStore } from './auth.store';
import LoginView from './LoginView.vue';

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return vi.fn(async (..._args: unknown[]) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } }));
}

async function mountLogin(locale: 'en' | 'ru' = 'en') {
  const pinia = createPinia();
  setActivePinia(pinia);
  const router = createRouter({
    history: createMemoryHistory(),
    routes: [
      { path: '/login', component: LoginView },
      { path: '/', component: { template: '<p>home</p>' } },
    ],
  });
  await router.push('/login');
  const wrapper = mount(LoginView, { global: { plugins: [pinia, router, createAppI18n(locale)] } });
  await wrapper.find('input[name="username"]').setValue('admin');
  await wrapper.find('input[name="password"]').setValue('some-password-123');
  return { wrapper, router };
}

describe('LoginView', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => vi.unstubAllGlobals());

  it('shows the throttle lock with the time to wait and keeps the button disabled', async () => {
    vi.stubGlobal('fetch', answer(429, { error: { code: 'auth/locked', message: 'Too many attempts' } }, { 'Retry-After': '125' }));
    const { wrapper } = await mountLogin();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="login-error"]').text()).toBe('Too many failed attempts. Try again in 2 min 5 s.');
    expect(wrapper.find('button[type="submit"]').attributes('disabled')).toBeDefined();
  });

  it('says the credentials are wrong on 401', async () => {
    vi.stubGlobal('fetch', answer(401, { error: { code: 'auth/invalid_credentials', message: 'Wrong' } }));
    const { wrapper } = await mountLogin();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="login-error"]').text()).toBe('Wrong username or password.');
  });

  it('signs in with the session cookie: asks for it, keeps no token in the page, sends the CSRF token with writes, and goes home', async () => {
    const expires = new Date(Date.now() + 12 * 3600_000).toISOString();
    const fetchMock = answer(200, { token: 'tok.en.value', expires_at: expires, user: { id: 'u1', username: 'admin', role: 'admin' }, csrf_token: 'csrf-1' });
    vi.stubGlobal('fetch', fetchMock);
    const { wrapper, router } = await mountLogin();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    const [url, init] = fetchMock.mock.calls[0] as [URL, RequestInit];
    expect(String(url)).toBe('http://127.0.0.1:8080/api/v1/auth/login');
    expect(JSON.parse(String(init.body))).toEqual({ username: 'admin', password: 'some-password-123' });
    expect(init.headers).toMatchObject({ 'X-SAC-Session': 'cookie' });
    expect(router.currentRoute.value.path).toBe('/');
    expect(sessionStorage.length).toBe(0);
    const auth = useAuthStore();
    expect(auth.isAdmin).toBe(true);
    expect(auth.expiresAt).toBe(Date.parse(expires));
    await auth.logout();
    const [logoutUrl, logoutInit] = fetchMock.mock.calls[1] as [URL, RequestInit];
    expect(String(logoutUrl)).toBe('http://127.0.0.1:8080/api/v1/auth/logout');
    expect(logoutInit.headers).toMatchObject({ 'X-CSRF-Token': 'csrf-1' });
    expect(logoutInit.headers).not.toHaveProperty('Authorization');
    expect(auth.signedIn).toBe(false);
  });

  it('opens signed in from the cookie (a new tab): the session answers the user and the CSRF token', async () => {
    const expires = new Date(Date.now() + 3600_000).toISOString();
    const fetchMock = answer(200, { user: { id: 'u1', username: 'admin', role: 'admin' }, expires_at: expires, csrf_token: 'csrf-2' });
    vi.stubGlobal('fetch', fetchMock);
    document.cookie = 'sac_signed_in=1; Path=/';
    setActivePinia(createPinia());
    const auth = useAuthStore();
    expect(await auth.restore()).toBe(true);
    expect(String((fetchMock.mock.calls[0] as [URL])[0])).toBe('http://127.0.0.1:8080/api/v1/auth/session');
    expect(auth.user?.username).toBe('admin');
    // A cookie the daemon no longer accepts: signed out, and the hint is gone, so the next load asks nothing.
    const refused = answer(401, { error: { code: 'auth/unauthorized', message: 'Sign in first' } });
    vi.stubGlobal('fetch', refused);
    setActivePinia(createPinia());
    expect(await useAuthStore().restore()).toBe(false);
    expect(document.cookie).not.toContain('sac_signed_in=1');
    setActivePinia(createPinia());
    expect(await useAuthStore().restore()).toBe(false);
    expect(refused).toHaveBeenCalledTimes(1);
  });

  it('locks only the user name the daemon locked: another name may sign in at once', async () => {
    vi.stubGlobal('fetch', answer(429, { error: { code: 'auth/too_many_attempts', message: 'Too many attempts' } }, { 'Retry-After': '600' }));
    const { wrapper } = await mountLogin();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    const submit = () => wrapper.find('button[type="submit"]');
    expect(submit().attributes('disabled')).toBeDefined();
    await wrapper.find('input[name="username"]').setValue('someone-else');
    expect(submit().attributes('disabled')).toBeUndefined();
    expect(wrapper.find('[data-testid="login-error"]').exists()).toBe(false);
    await wrapper.find('input[name="username"]').setValue(' ADMIN ');
    expect(submit().attributes('disabled')).toBeDefined();
    expect(wrapper.find('[data-testid="login-error"]').text()).toBe('Too many failed attempts. Try again in 10 min.');
  });

  it.each([
    ['en', 2, 'Wrong username or password. 2 attempts left before this user name is locked.'],
    ['en', 1, 'Wrong username or password. 1 attempt left before this user name is locked.'],
    ['ru', 1, 'Неверное имя пользователя или пароль. До блокировки этого имени осталась 1 попытка.'],
    ['ru', 2, 'Неверное имя пользователя или пароль. До блокировки этого имени осталось 2 попытки.'],
    ['en', 0, 'Wrong username or password. Sign-in for this user name is now locked for a while.'],
  ] as const)('warns in %s with %i attempts left', async (locale, left, text) => {
    vi.stubGlobal('fetch', answer(401, { error: { code: 'auth/invalid_credentials', message: 'Wrong', details: { attempts_left: left } } }));
    const { wrapper } = await mountLogin(locale);
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[data-testid="login-error"]').text()).toBe(text);
    await wrapper.find('input[name="username"]').setValue('another');
    expect(wrapper.find('[data-testid="login-error"]').exists()).toBe(false);
  });
});

describe('renewDelayMs', () => {
  it('renews ten minutes before a long session ends, at 80 % of a short one, never in the past', () => {
    expect(renewDelayMs(12 * 3600_000, 0)).toBe(12 * 3600_000 - 600_000);
    expect(renewDelayMs(5 * 60_000, 0)).toBe(4 * 60_000);
    expect(renewDelayMs(1000, 5000)).toBe(0);
  });
});
