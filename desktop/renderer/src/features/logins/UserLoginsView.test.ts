// @vitest-environment happy-dom
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia } from 'pinia';
import { describe, expect, it, vi } from 'vitest';
import { createMemoryHistory, createRouter } from 'vue-router';
import type { UserLoginsView } from '../../../../../shared/src/login-intel.schema';
import { createAppI18n } from '../../i18n';
import { baseline, sighting } from './logins.fixtures';

const answers = new Map<string, UserLoginsView>([
  [
    'CORP\\alice',
    {
      user: 'alice',
      baseline: baseline(),
      logins: [
        { ...sighting({ event_id: 'e2', country: 'BR', asn: 28573, as_org: 'Claro NXT' }), type: 'rdp.login.success', outcome: 'success' },
        { ...sighting({ event_id: 'e1', address: '10.0.0.5', country: null, asn: null, as_org: null }), type: 'ssh.login.failed', outcome: 'failure' },
        { ...sighting({ event_id: 'e0' }), type: 'ssh.login.success', outcome: 'success' },
      ],
    },
  ],
  ['bob', { user: 'bob', baseline: null, logins: [] }],
]);
const asked: string[] = [];
vi.mock('./logins.api', () => ({
  loginsApi: {
    user: async (user: string) => {
      asked.push(user);
      return answers.get(user);
    },
  },
}));
const { default: UserLoginsView } = await import('./UserLoginsView.vue');

async function mountPage(path: string, lang: 'en' | 'ru' = 'en') {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/logins/:user', component: UserLoginsView }, { path: '/:rest(.*)*', component: { template: '<p />' } }] });
  await router.push(path);
  const wrapper = mount(UserLoginsView, { global: { plugins: [createPinia(), router, createAppI18n(lang)], stubs: { FailedLoginMap: { props: ['countries'], template: '<div data-testid="user-login-map">{{ countries.map((c) => `${c.country}:${c.count}`).join(",") }}</div>' } } } });
  await flushPromises();
  return wrapper;
}

describe('UserLoginsView', () => {
  it('asks for the name as the link gave it and shows the logins, their countries on the map and the baseline', async () => {
    const w = await mountPage('/logins/CORP%5Calice');
    expect(asked.at(-1)).toBe('CORP\\alice');
    expect(w.find('h1').text()).toBe('Logins of alice');
    const rows = w.findAll('[data-testid="user-logins-table"] tbody tr');
    expect(rows.map((r) => r.attributes('data-outcome'))).toEqual(['success', 'failure', 'success']);
    expect(rows[0].text()).toContain('AS28573 Claro NXT');
    expect(rows[1].text()).toContain('10.0.0.5');
    expect(w.find('[data-testid="user-login-map"]').text()).toBe('BR:1,DE:1');
    expect(w.find('[data-testid="baseline-hosts"]').text()).toContain('web1');
    expect(w.find('[data-testid="learning-until"]').text()).toContain('learnt');
  });

  it('says when nothing is learnt yet and no login is stored, in Russian too', async () => {
    const w = await mountPage('/logins/bob', 'ru');
    expect(w.find('[data-testid="no-baseline"]').text()).toBe('Успешных входов за период обучения нет: ничего не выучено.');
    expect(w.find('[data-testid="user-logins"]').text()).toContain('Входов этого пользователя нет.');
    expect(w.find('[data-testid="user-login-map"]').exists()).toBe(false);
  });
});
