// @vitest-environment happy-dom
import { mount } from '@vue/test-utils';
import { createPinia } from 'pinia';
import { describe, expect, it } from 'vitest';
import { createMemoryHistory, createRouter } from 'vue-router';
import type { ProblemEvidence } from '../../../../../shared/src/login-intel.schema';
import { createAppI18n } from '../../i18n';
import { EVIDENCE } from './logins.fixtures';
import ProblemWhyPanel from './ProblemWhyPanel.vue';

function mountPanel(evidence: ProblemEvidence, lang: 'en' | 'ru' = 'en') {
  const router = createRouter({ history: createMemoryHistory(), routes: [{ path: '/:rest(.*)*', component: { template: '<p />' } }] });
  return mount(ProblemWhyPanel, {
    props: { evidence },
    global: { plugins: [createPinia(), router, createAppI18n(lang)], stubs: { FailedLoginMap: { props: ['countries'], template: '<div data-testid="why-map">{{ countries.map((c) => c.country).join(",") }}</div>' } } },
  });
}
const href = (w: ReturnType<typeof mountPanel>, id: string) => decodeURIComponent(w.find(`[data-testid="${id}"]`).attributes('href') ?? '');

describe('ProblemWhyPanel', () => {
  it('success after failures: the login, the failures per host, the address’s events and the user’s page', () => {
    const w = mountPanel(EVIDENCE.login_after_failures);
    expect(w.find('[data-testid="why-lead"]').text()).toBe('Successful login from 198.51.100.9, which had failed before');
    expect(w.find('[data-testid="why-login"]').text()).toContain('web1');
    expect(w.find('[data-testid="why-login"]').text()).toContain('AS28573 Claro NXT');
    expect(w.findAll('[data-testid="why-hosts"] li').map((li) => `${li.find('a').text()}: ${li.find('.count').text()}`)).toEqual(['web1: 3 failures', 'db1: 2 failures']);
    expect(href(w, 'why-events')).toMatch(/^\/events\?ip=198\.51\.100\.9&from=.+&to=.+/);
    expect(href(w, 'why-user')).toBe('/logins/alice');
  });

  it('distributed brute force: the hosts one address hit, no user', () => {
    const w = mountPanel(EVIDENCE.distributed_bruteforce);
    expect(w.find('[data-testid="why-lead"]').text()).toBe('198.51.100.66 failed on 4 hosts within 10 min');
    expect(w.findAll('[data-testid="why-hosts"] li')).toHaveLength(4);
    expect(w.find('[data-testid="why-user"]').exists()).toBe(false);
  });

  it('new source: what is new, and the baseline with the login’s hour marked', () => {
    const w = mountPanel(EVIDENCE.new_source);
    expect(w.find('[data-testid="why-new-country"]').exists()).toBe(true);
    expect(w.find('[data-testid="why-new-asn"]').exists()).toBe(true);
    expect(w.find('[data-testid="baseline-countries"]').text()).toContain('Germany');
    expect(w.find('[data-testid="baseline-asns"]').text()).toContain('AS3320 Deutsche Telekom AG');
    const marked = w.find('[data-testid="login-hours"] .mark');
    expect(marked.attributes('data-hour')).toBe('3');
    expect(marked.attributes('data-count')).toBe('0');
    expect(w.findAll('[data-testid="login-hours"] .slot')).toHaveLength(24);
    expect(href(w, 'why-events')).toBe('/events?ip=203.0.113.50');
  });

  it('impossible travel: both logins, distance, time, speed over the limit, both countries on the map', () => {
    const w = mountPanel(EVIDENCE.impossible_travel);
    expect(w.find('[data-testid="why-from"]').text()).toContain('web1');
    expect(w.find('[data-testid="why-to"]').text()).toContain('web2');
    expect(w.find('[data-testid="why-distance"]').text()).toBe('6,412 km');
    expect(w.find('[data-testid="why-speed"]').text()).toBe('12,825 km/h (limit 900 km/h)');
    expect(w.find('[data-testid="why-map"]').text()).toBe('DE,US');
  });

  it('mass silence: the silent hosts with their last sign of life, no events link', () => {
    const w = mountPanel(EVIDENCE.mass_silence);
    expect(w.find('[data-testid="why-lead"]').text()).toBe('2 hosts fell silent at once (80 %)');
    expect(w.findAll('[data-testid="why-hosts"] li')[1].text()).toContain('never');
    expect(w.find('[data-testid="why-events"]').exists()).toBe(false);
  });

  it('speaks Russian', () => {
    expect(mountPanel(EVIDENCE.distributed_bruteforce, 'ru').find('[data-testid="why-lead"]').text()).toBe('198.51.100.66: неудачные входы на 4 хостах за 10 мин');
    expect(mountPanel(EVIDENCE.mass_silence, 'ru').find('[data-testid="why-lead"]').text()).toBe('Одновременно замолчали 2 хоста (80 %)');
    expect(mountPanel(EVIDENCE.impossible_travel, 'ru').find('[data-testid="why-speed"]').text()).toMatch(/^12\s825 км\/ч \(предел 900 км\/ч\)$/);
  });
});
