// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia } from 'pinia';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryHistory, createRouter } from 'vue-router';
import { createAppI18n } from '../../i18n';

const sshView = {
  category: 'ssh_admin',
  values: { username: 'sac', port: 22, private_key: { set: true }, passphrase: { set: false }, password: { set: true }, known_hosts: 'web1 ssh-ed25519 AAAA\n' },
  stored_fields: ['username', 'port', 'private_key', 'password', 'known_hosts'],
  updated_at: null,
  updated_by: null,
};
vi.mock('./settings.api', () => ({
  settingsApi: { list: async () => [sshView], update: vi.fn(), reset: vi.fn(), test: vi.fn(), pushSubscriptions: async () => 0 },
}));
const { default: SettingsView } = await import('./SettingsView.vue');

async function mountView(lang: 'en' | 'ru') {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/', component: SettingsView }] });
  await router.push('/?category=ssh_admin');
  const wrapper = mount(SettingsView, { global: { plugins: [createPinia(), router, createAppI18n(lang)] } });
  await flushPromises();
  return wrapper;
}

describe('SettingsView: a stored secret whose destination changes', () => {
  it('is shown as required with the reason until it is typed again', async () => {
    const wrapper = await mountView('en');
    // known_hosts as the API stored it, with a final newline, is no change.
    expect(wrapper.find('[data-testid^="secret-again-"]').exists()).toBe(false);
    await wrapper.find('[data-field="port"]').setValue('2222');
    for (const key of ['private_key', 'password']) {
      expect(wrapper.find(`[data-field="${key}"]`).attributes('required')).toBeDefined();
      expect(wrapper.find(`[data-testid="secret-again-${key}"]`).text()).toBe('Type it again: Port changed, so the stored value would go somewhere new.');
    }
    // The passphrase is not stored: nothing to give again.
    expect(wrapper.find('[data-testid="secret-again-passphrase"]').exists()).toBe(false);
    await wrapper.find('[data-field="password"]').setValue('new-password');
    expect(wrapper.find('[data-testid="secret-again-password"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="secret-again-private_key"]').exists()).toBe(true);
    await wrapper.find('[data-field="port"]').setValue('22');
    expect(wrapper.find('[data-testid="secret-again-private_key"]').exists()).toBe(false);
  });

  it('explains it in Russian too', async () => {
    const wrapper = await mountView('ru');
    await wrapper.find('[data-field="known_hosts"]').setValue('web2 ssh-ed25519 BBBB');
    expect(wrapper.find('[data-testid="secret-again-private_key"]').text()).toBe(
      'Введите снова: изменены поля (known_hosts), и сохранённое значение ушло бы по новому адресу.',
    );
  });
});
