import { describe, expect, it } from 'vitest';
import type { GroupHost } from '../groups/index.js';
import { activeForHost, isActive, localWeekMinute, matches, silencesHost, suppressingWindow } from './maintenance.rules.js';

const at = (iso: string) => Date.parse(iso);
const base = { hosts: [] as string[], group_ids: [] as string[], type_prefixes: [] as string[], rules: [] as string[], recurrence: null };
/** A host as group rules see it. */
const host = (id: string, hostname: string, os_family: 'windows' | 'linux' = 'windows'): GroupHost => ({
  id,
  hostname,
  fqdn: null,
  os_family,
  agent_product: 'rdp-login-monitor',
  ips: [],
  ipv4: null,
  observed_ip: null,
});

describe('maintenance window timing', () => {
  it('a one-off window is in force from its start until (not including) its end', () => {
    const w = { ...base, starts_ms: at('2026-06-01T10:00:00Z'), ends_ms: at('2026-06-01T12:00:00Z') };
    expect(isActive(w, at('2026-06-01T09:59:59Z'))).toBe(false);
    expect(isActive(w, at('2026-06-01T10:00:00Z'))).toBe(true);
    expect(isActive(w, at('2026-06-01T11:59:59Z'))).toBe(true);
    expect(isActive(w, at('2026-06-01T12:00:00Z'))).toBe(false);
  });

  it('a weekly recurrence follows local time in its zone, also across midnight and the week end', () => {
    // Saturdays 23:00-01:00 Moscow time (UTC+3): Saturday 20:00Z to Saturday 22:00Z.
    const w = {
      ...base,
      starts_ms: at('2026-01-01T00:00:00Z'),
      ends_ms: null,
      recurrence: { weekdays: [6], start: '23:00', duration_minutes: 120, timezone: 'Europe/Moscow' },
    };
    expect(localWeekMinute(at('2026-06-06T20:30:00Z'), 'Europe/Moscow')).toEqual({ weekday: 6, minute: 23 * 60 + 30 });
    expect(isActive(w, at('2026-06-06T19:59:00Z'))).toBe(false);
    expect(isActive(w, at('2026-06-06T20:00:00Z'))).toBe(true);
    expect(isActive(w, at('2026-06-06T21:30:00Z'))).toBe(true); // Sunday 00:30 local
    expect(isActive(w, at('2026-06-06T22:00:00Z'))).toBe(false);
    expect(isActive(w, at('2026-06-07T20:30:00Z'))).toBe(false); // Sunday evening
    expect(isActive(w, at('2026-06-13T20:30:00Z'))).toBe(true); // next Saturday
    expect(isActive({ ...w, starts_ms: at('2026-06-10T00:00:00Z') }, at('2026-06-06T20:30:00Z'))).toBe(false);
  });
});

describe('maintenance window matching', () => {
  it('matches hosts case-insensitively, type prefixes by dotted segments, rules only for problems', () => {
    const w = { ...base, hosts: ['rds01'], type_prefixes: ['rdp.login'] };
    expect(matches(w, { hostname: 'RDS01', type: 'rdp.login.failed' })).toBe(true);
    expect(matches(w, { hostname: 'RDS01', type: 'rdp.loginx' })).toBe(false);
    expect(matches(w, { hostname: 'RDS02', type: 'rdp.login.failed' })).toBe(false);
    const byRule = { ...base, rules: ['host_silence'] };
    expect(matches(byRule, { hostname: 'x', type: 'host.silence' })).toBe(false);
    expect(matches(byRule, { hostname: 'x', type: 'host.silence', rule: 'host_silence' })).toBe(true);
  });

  it('finds the suppressing window, silences hosts and lists the windows shown on a host', () => {
    const now = at('2026-06-01T11:00:00Z');
    const open = { ...base, starts_ms: at('2026-06-01T10:00:00Z'), ends_ms: at('2026-06-01T12:00:00Z') };
    const later = { ...open, starts_ms: at('2026-06-01T11:30:00Z') };
    const windows = [{ ...later, hosts: ['a'] }, { ...open, hosts: ['b'] }, { ...open, type_prefixes: ['ssh'] }];
    expect(suppressingWindow(windows, { hostname: 'A', type: 'rdp.x' }, now)).toBeNull();
    expect(suppressingWindow(windows, { hostname: 'B', type: 'rdp.x' }, now)).toBe(windows[1]);
    expect(silencesHost(windows, host('h-b', 'b'), now)).toBe(true);
    expect(silencesHost(windows, host('h-c', 'c'), now)).toBe(false);
    expect(activeForHost(windows, { hostname: 'c', hosts: [] }, now)).toEqual([windows[2]]);
  });

  it('covers the members of the groups a window names, as the host is when the notification comes', () => {
    const now = at('2026-06-01T11:00:00Z');
    const open = { ...base, starts_ms: at('2026-06-01T10:00:00Z'), ends_ms: at('2026-06-01T12:00:00Z') };
    const linuxGroup = { host_ids: ['h-named'], rules: { host_patterns: [], os_families: ['linux' as const], agent_products: [], cidrs: [] } };
    const w = { ...open, group_ids: ['g1'], groups: [linuxGroup] };
    // By the group's rule, by its explicit member, by neither; without the host, by name only.
    expect(matches(w, { hostname: 'web-1', type: 'ssh.x', host: host('h-web', 'web-1', 'linux') })).toBe(true);
    expect(matches(w, { hostname: 'ws-1', type: 'rdp.x', host: host('h-named', 'ws-1') })).toBe(true);
    expect(matches(w, { hostname: 'ws-2', type: 'rdp.x', host: host('h-ws2', 'ws-2') })).toBe(false);
    expect(matches(w, { hostname: 'web-1', type: 'ssh.x' })).toBe(false);
    // A group deleted since the window was saved covers no host; a host named beside the group still counts.
    expect(matches({ ...w, groups: [] }, { hostname: 'web-1', type: 'ssh.x', host: host('h-web', 'web-1', 'linux') })).toBe(false);
    expect(matches({ ...w, hosts: ['ws-2'] }, { hostname: 'WS-2', type: 'rdp.x', host: host('h-ws2', 'ws-2') })).toBe(true);
    expect(silencesHost([w], host('h-web', 'web-1', 'linux'), now)).toBe(true);
    expect(activeForHost([w], { hostname: 'web-1', hosts: [host('h-web', 'web-1', 'linux')] }, now)).toEqual([w]);
    expect(activeForHost([w], { hostname: 'ws-2', hosts: [host('h-ws2', 'ws-2')] }, now)).toEqual([]);
  });
});
