// @vitest-environment happy-dom
// @vitest-environment-options {"url": "http://127.0.0.1:8080/"}
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia } from 'pinia';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryHistory, createRouter } from 'vue-router';
import type { ConnectionProfile, DesktopBridge } from '../../../../preload/bridge';
import { createAppI18n } from '../../i18n';

// The Electron preload's bridge, faked: the view must work through it alone.
const saved: ConnectionProfile[] = [{ id: 'p0', name: 'Lab', url: 'http://10.0.0.5:8080' }];
const bridge: DesktopBridge = {
  kind: 'electron',
  capabilities: { connectionProfiles: true, secureTokenStorage: true, nativeNotifications: true },
  profiles: {
    list: async () => saved,
    active: async () => null,
    save: vi.fn(async (input) => {
      if (!/^https?:\/\//.test(input.url)) throw new Error('Only http:// and https:// servers are supported');
      return { id: 'p1', name: input.name, url: input.url };
    }),
    remove: vi.fn(async () => undefined),
    activate: vi.fn(async () => undefined),
    probe: vi.fn(async () => ({ ok: true as const, version: '0.1.0', store: 'sqlite' })),
  },
  tokens: { get: async () => null, set: vi.fn(async () => undefined), clear: vi.fn(async () => undefined) },
  notifications: { permitted: async () => true, enable: async () => true, show: vi.fn(async () => undefined) },
};
window.sacDesktop = bridge;
const { default: ConnectView } = await import('./ConnectView.vue');

async function mountView() {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/', component: ConnectView }, { path: '/login', component: { template: '<p/>' } }] });
  await router.push('/');
  const wrapper = mount(ConnectView, { global: { plugins: [createPinia(), router, createAppI18n('en')] } });
  await flushPromises();
  return wrapper;
}

describe('ConnectView (desktop connection screen)', () => {
  it('lists saved connections and probes a typed URL', async () => {
    const wrapper = await mountView();
    expect(wrapper.text()).toContain('Lab');
    expect(wrapper.text()).toContain('http://10.0.0.5:8080');
    await wrapper.find('input[required]').setValue('https://sac.example.org');
    await wrapper.findAll('button').find((b) => b.text() === 'Test')!.trigger('click');
    await flushPromises();
    expect(bridge.profiles.probe).toHaveBeenCalledWith('https://sac.example.org');
    expect(wrapper.text()).toContain('Reachable: SAC 0.1.0 (sqlite)');
  });

  it('shows the reason a URL is refused and activates a saved one', async () => {
    const reload = vi.fn();
    Object.defineProperty(window, 'location', { value: { ...window.location, reload, hash: '' }, configurable: true });
    const wrapper = await mountView();
    await wrapper.find('input[required]').setValue('ftp://nope');
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(wrapper.find('[role="alert"]').text()).toBe('Only http:// and https:// servers are supported');
    expect(bridge.profiles.activate).not.toHaveBeenCalled();

    await wrapper.find('input[required]').setValue('https://sac.example.org');
    await wrapper.find('form').trigger('submit');
    await flushPromises();
    expect(bridge.tokens?.clear).toHaveBeenCalled();
    expect(bridge.profiles.activate).toHaveBeenCalledWith('p1');
    expect(reload).toHaveBeenCalled();
  });
});
