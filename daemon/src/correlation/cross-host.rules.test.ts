import { describe, expect, it } from 'vitest';
import { DEFAULT_CROSS_HOST_RULES } from './correlation.settings.js';
import { loginSource, loginUser } from './logins.rules.js';
import { massSilenceGroup } from './mass-silence.rules.js';

describe('login sources and users', () => {
  it.each([
    [{ ip_address: '203.0.113.5' }, '203.0.113.5'],
    [{ ip_address: '-', source_ip: '10.1.2.3' }, '10.1.2.3'],
    [{ external_ip: '::ffff:100.64.0.9' }, '100.64.0.9'],
    [{ ip_address: '127.0.0.1' }, null],
    [{ ip_address: 'fe80::1' }, null],
    [{ ip_address: 'N/A' }, null],
    [{}, null],
  ])('%j counts under %s', (details, expected) => {
    expect(loginSource(details)).toBe(expected);
  });

  it.each([
    ['CORP\\Administrator', 'administrator'],
    ['Admin@corp.example', 'admin'],
    ['-', '-'],
    [undefined, '-'],
  ])('user %s is %s', (user, expected) => {
    expect(loginUser({ user })).toBe(expected);
  });
});

describe('mass silence group', () => {
  const rule = DEFAULT_CROSS_HOST_RULES.massSilence;
  const at = (minutes: number[]) => minutes.map((m, i) => ({ host: i, onset_ms: m * 60_000 }));

  it('is the largest set within the minutes, when more than the share of all hosts and at least the minimum', () => {
    expect(massSilenceGroup(at([0, 1, 2, 3, 4, 5, 60]), 11, rule)?.map((o) => o.host)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(massSilenceGroup(at([0, 1, 2, 3, 4, 5]), 12, rule)).toBeNull(); // 6 of 12 is not more than half
    expect(massSilenceGroup(at([0, 1, 2, 3]), 5, rule)).toBeNull(); // fewer than the minimum
    expect(massSilenceGroup(at([0, 10, 20, 30, 40, 50]), 6, rule)).toBeNull(); // not together
    expect(massSilenceGroup(at([0, 1, 2, 3, 4, 5]), 6, { ...rule, enabled: false })).toBeNull();
  });
});
