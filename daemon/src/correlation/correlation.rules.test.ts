import { describe, expect, it } from 'vitest';
import { parseEvent, type Event, type Severity } from '../../../shared/src/index.js';
import { buildEvent } from '../../../test/helpers/events.js';
import {
  clusterByWindow,
  contentFingerprint,
  effectiveSeverity,
  isHiddenType,
  maxSeverity,
  opensProblem,
  problemFingerprint,
  problemKey,
  typeMatches,
  uniqueLinks,
  withinWindow,
} from './correlation.rules.js';

function event(overrides: Parameters<typeof buildEvent>[0] = {}): Event {
  const parsed = parseEvent(buildEvent(overrides));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.event;
}

describe('opensProblem', () => {
  it.each<[string, Severity, boolean]>([
    ['rdp.login.failed', 'warning', true],
    ['rdp.bruteforce.burst', 'high', true],
    ['auth.account.locked', 'critical', true],
    ['rdp.login.success', 'info', false],
    ['agent.heartbeat', 'high', false],
    ['agent.inventory', 'warning', false],
    ['agent.test', 'critical', false],
    ['report.daily.rdp', 'high', false],
    ['agent.health', 'warning', true],
  ])('%s at %s → %s', (type, severity, expected) => {
    expect(opensProblem(type, severity)).toBe(expected);
  });
});

describe('typeMatches and hidden types', () => {
  it.each<[string, string, boolean]>([
    ['rdg.connection.failed', 'rdg.connection', true],
    ['rdg.connection', 'rdg.connection', true],
    ['rdg.connectionx', 'rdg.connection', false],
    ['rdg.connection.failed', 'rdg.connection.*', true],
    ['rdg.connection.failed', 'rdg.', true],
    ['rdp.login.failed', 'rdg', false],
  ])('%s under %s → %s', (type, pattern, expected) => {
    expect(typeMatches(type, pattern)).toBe(expected);
  });
  it('hides a type matched by any pattern', () => {
    expect(isHiddenType('agent.notification', ['smb', 'agent.notification'])).toBe(true);
    expect(isHiddenType('agent.lifecycle', ['smb', 'agent.notification'])).toBe(false);
    expect(isHiddenType('agent.lifecycle', [])).toBe(false);
  });
});

describe('effectiveSeverity', () => {
  const overrides: Record<string, Severity> = { 'rdp.login.failed': 'high', rdp: 'info', 'rdp.login': 'warning' };
  it.each<[string, Severity, Severity]>([
    ['rdp.login.failed', 'warning', 'high'],
    ['rdp.login.success', 'info', 'warning'],
    ['rdp.shadow.control.started', 'warning', 'info'],
    ['winrm.session.started', 'warning', 'warning'],
  ])('%s (%s) → %s', (type, agent, expected) => {
    expect(effectiveSeverity(type, agent, overrides)).toBe(expected);
  });
});

describe('problem key and fingerprint', () => {
  it('joins host, type, rule and the discriminator; the fingerprint is stable per key', () => {
    const key = problemKey('h1', 'rdg.connection.flap', 'rdg_flap', ['corp\\ivanov', '10.0.0.5']);
    expect(key).toBe('h1|rdg.connection.flap|rdg_flap|corp\\ivanov|10.0.0.5');
    expect(problemFingerprint(key)).toBe(problemFingerprint(key));
    expect(problemFingerprint(key)).not.toBe(problemFingerprint(problemKey('h2', 'rdg.connection.flap', 'rdg_flap')));
    expect(problemFingerprint(key)).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('contentFingerprint', () => {
  const base = event();
  const at = Date.parse(base.occurred_at);
  const fp = contentFingerprint('h1', base, 'administrator', at);
  it('is equal for a replay under a new event_id', () => {
    expect(contentFingerprint('h1', { ...base, event_id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' }, 'administrator', at)).toBe(fp);
  });
  it.each<[string, () => string]>([
    ['host', () => contentFingerprint('h2', base, 'administrator', at)],
    ['type', () => contentFingerprint('h1', { ...base, type: 'rdp.login.success' }, 'administrator', at)],
    ['occurred_at', () => contentFingerprint('h1', base, 'administrator', at + 1)],
    ['event_id_windows', () => contentFingerprint('h1', event({ details: { event_id_windows: 4624 } }), 'administrator', at)],
    ['actor user', () => contentFingerprint('h1', base, 'guest', at)],
    ['ip', () => contentFingerprint('h1', event({ details: { ip_address: '198.51.100.1' } }), 'administrator', at)],
  ])('differs when the %s differs', (_name, other) => {
    expect(other()).not.toBe(fp);
  });
});

describe('window match and clustering', () => {
  const W = 60_000;
  it.each<[string, { first_ms: number; last_ms: number }, boolean]>([
    ['inside the span', { first_ms: 150_000, last_ms: 150_000 }, true],
    ['a window after last_seen', { first_ms: 260_000, last_ms: 260_000 }, true],
    ['past the window', { first_ms: 260_001, last_ms: 260_001 }, false],
    ['a window before first_seen (late event)', { first_ms: 40_000, last_ms: 40_000 }, true],
    ['before the window', { first_ms: 39_999, last_ms: 39_999 }, false],
    ['a group overlapping the end', { first_ms: 10_000, last_ms: 50_000 }, true],
  ])('%s', (_name, events, expected) => {
    expect(withinWindow({ first_ms: 100_000, last_ms: 200_000 }, events, W)).toBe(expected);
  });
  it('clusters by gaps of at most the window, sorted by occurred time', () => {
    const items = [500, 0, 60, 130, 121, 400].map((occurred_ms) => ({ occurred_ms }));
    expect(clusterByWindow(items, 60).map((c) => c.map((i) => i.occurred_ms))).toEqual([[0, 60], [121, 130], [400], [500]]);
  });
  it('keeps the highest severity', () => {
    expect(maxSeverity('warning', 'high')).toBe('high');
    expect(maxSeverity('critical', 'high')).toBe('critical');
  });
});

describe('uniqueLinks', () => {
  it('keeps each event once, counted when any occurrence counted it, in first-seen order', () => {
    const a = { event_id: 'a', occurred_ms: 1, counted: false };
    const b = { event_id: 'b', occurred_ms: 2, counted: true };
    expect(uniqueLinks([[b, a], [{ ...a, counted: true }, { ...b, counted: false }], []])).toEqual([b, { ...a, counted: true }]);
    expect(uniqueLinks([])).toEqual([]);
  });
});
