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

async function mountLogin() {
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
  const wrapper = mount(LoginView, { global: { plugins: [pinia, router, createAppI18n('en')] } });
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

  it('signs in: keeps the token in sessionStorage, schedules renewal and goes home', async () => {
    const expires = new Date(Date.now() + 12 * 3600_000).toISOString();
    const fetchMock = answer(200, { token: 'tok.en.value', expires_at: expires, user: { id: 'u1', username: 'admin', role: 'admin' } });
    vi.stubGlobal('fetch', fetchMock);
    const { wrapper, router } = await mountLogin();
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    const [url, init] = fetchMock.mock.calls[0] as [URL, RequestInit];
    expect(String(url)).toBe('http://127.0.0.1:8080/api/v1/auth/login');
    expect(JSON.parse(String(init.body))).toEqual({ username: 'admin', password: 'some-password-123' });
    expect(router.currentRoute.value.path).toBe('/');
    expect(sessionStorage.getItem('sac.session')).toBe('tok.en.value');
    const auth = useAuthStore();
    expect(auth.isAdmin).toBe(true);
    expect(auth.expiresAt).toBe(Date.parse(expires));
    await auth.logout();
    expect(sessionStorage.getItem('sac.session')).toBeNull();
  });
});

describe('renewDelayMs', () => {
  it('renews ten minutes before a long session ends, at 80 % of a short one, never in the past', () => {
    expect(renewDelayMs(12 * 3600_000, 0)).toBe(12 * 3600_000 - 600_000);
    expect(renewDelayMs(5 * 60_000, 0)).toBe(4 * 60_000);
    expect(renewDelayMs(1000, 5000)).toBe(0);
  });
});
