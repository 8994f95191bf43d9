import { describe, expect, it } from 'vitest';
import { GroupRulesSchema, type GroupRules } from '../../../shared/src/index.js';
import { globMatches, groupMembers, invalidCidrs, parseCidr, rulesMatcher, type GroupHost } from './groups.rules.js';

const host = (over: Partial<GroupHost> = {}): GroupHost => ({
  id: 'h1',
  hostname: 'WEB-01',
  fqdn: 'web-01.corp.example',
  os_family: 'linux',
  agent_product: 'ssh-monitor',
  ips: ['10.1.2.3'],
  ipv4: '10.1.2.3',
  observed_ip: '192.0.2.7',
  ...over,
});
const rules = (over: Partial<GroupRules>): GroupRules => GroupRulesSchema.parse(over);

describe('globMatches', () => {
  it.each([
    ['web-*', 'WEB-01', true],
    ['web-?1', 'web-01', true],
    ['web-?', 'web-01', false],
    ['*', '', true],
    ['*.corp.example', 'web-01.corp.example', true],
    ['*.corp.example', 'web-01.corp.example.org', false],
    ['db*', 'web-01', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYY', false],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
  ])('%s ~ %s → %s', (pattern, text, expected) => {
    expect(globMatches(pattern, text)).toBe(expected);
  });

  it('stays fast on a pattern that makes backtracking matchers explode', () => {
    const started = performance.now();
    expect(globMatches(`${'*a'.repeat(100)}b`, 'a'.repeat(255))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { address: '10.0.0.0', prefix: 8, family: 'ipv4' }],
    ['10.1.2.3', { address: '10.1.2.3', prefix: 32, family: 'ipv4' }],
    ['2001:db8::/32', { address: '2001:db8::', prefix: 32, family: 'ipv6' }],
    ['10.0.0.0/33', null],
    ['10.0.0/8', null],
    ['10.0.0.0/8/1', null],
    ['10.0.0.0/', null],
    ['::/129', null],
    ['300.1.1.1', null],
  ])('%s', (text, expected) => {
    expect(parseCidr(text)).toEqual(expected);
  });

  it('lists the malformed ranges of a rule set', () => {
    expect(invalidCidrs(rules({ cidrs: ['10.0.0.0/8', '10.0.0.0/40', '1.2.3'] }))).toEqual(['10.0.0.0/40', '1.2.3']);
  });
});

describe('rulesMatcher', () => {
  it.each<[string, Partial<GroupRules>, Partial<GroupHost>, boolean]>([
    ['no rules match nothing', {}, {}, false],
    ['name pattern', { host_patterns: ['web-*'] }, {}, true],
    ['fqdn pattern', { host_patterns: ['*.corp.example'] }, {}, true],
    ['name pattern miss', { host_patterns: ['db-*'] }, {}, false],
    ['os family', { os_families: ['windows'] }, {}, false],
    ['os family hit', { os_families: ['linux', 'windows'] }, {}, true],
    ['agent product', { agent_products: ['rdp-login-monitor'] }, {}, false],
    ['reported address in range', { cidrs: ['10.1.0.0/16'] }, {}, true],
    ['observed address in range', { cidrs: ['192.0.2.0/24'] }, {}, true],
    ['no address in range', { cidrs: ['172.16.0.0/12'] }, {}, false],
    ['an older reported address counts', { cidrs: ['172.16.0.0/12'] }, { ips: ['172.16.5.5', '10.1.2.3'] }, true],
    ['ipv6 range', { cidrs: ['2001:db8::/32'] }, { observed_ip: '2001:db8::5' }, true],
    ['every kind must match', { host_patterns: ['web-*'], os_families: ['windows'] }, {}, false],
    ['every kind matching', { host_patterns: ['web-*'], os_families: ['linux'], agent_products: ['ssh-monitor'], cidrs: ['10.0.0.0/8'] }, {}, true],
  ])('%s', (_name, r, h, expected) => {
    expect(rulesMatcher(rules(r))(host(h))).toBe(expected);
  });
});

describe('groupMembers', () => {
  const hosts = ['web-01', 'db-01', 'web-02'].map((hostname, i) => host({ id: 'abc'[i], hostname, fqdn: null }));

  it('takes named hosts and rule matches, and says why each is in', () => {
    const members = groupMembers({ host_ids: ['b', 'c', 'gone'], rules: rules({ host_patterns: ['web-*'] }) }, hosts);
    expect(members.map((m) => [m.host.id, m.explicit, m.by_rules])).toEqual([
      ['a', false, true],
      ['b', true, false],
      ['c', true, true],
    ]);
  });

  it('is empty for a group with neither members nor rules', () => {
    expect(groupMembers({ host_ids: [], rules: rules({}) }, hosts)).toEqual([]);
  });
});
