import { describe, expect, it } from 'vitest';
import { formatSilence, hostStatus, isLivenessType, silenceAction, staleMinutesFor, type SilenceState } from './hosts.rules.js';

const MIN = 60_000;

describe('host status', () => {
  it.each<[number, number, 'online' | 'stale']>([
    [0, 300, 'online'],
    [300 * MIN, 300, 'online'],
    [300 * MIN + 1, 300, 'stale'],
    [0.5 * MIN, 0.25, 'stale'],
    [0.2 * MIN, 0.25, 'online'],
  ])('%d ms silent with %d min threshold → %s', (silentMs, minutes, expected) => {
    expect(hostStatus(1_000_000_000 - silentMs, 1_000_000_000, minutes)).toBe(expected);
  });
  it('takes the per-product threshold when one is set', () => {
    expect(staleMinutesFor('ssh-monitor', 300, { 'ssh-monitor': 15 })).toBe(15);
    expect(staleMinutesFor('rdp-login-monitor', 300, { 'ssh-monitor': 15 })).toBe(300);
  });
  it.each([
    ['agent.heartbeat', true],
    ['report.daily.rdp', true],
    ['report.daily.ssh', true],
    ['agent.inventory', false],
    ['report.weekly', false],
  ])('%s proves liveness → %s', (type, expected) => expect(isLivenessType(type)).toBe(expected));
});

describe('silenceAction', () => {
  const now = 10_000 * MIN;
  const resolved = (by: 'manual' | 'auto', agoMin: number): SilenceState => ({ status: 'resolved', resolved_by: by, resolved_ms: now - agoMin * MIN });
  it.each<[string, 'online' | 'stale', SilenceState | null, string]>([
    ['online host', 'online', null, 'none'],
    ['stale host without a problem', 'stale', null, 'open'],
    ['stale host with an open problem', 'stale', { status: 'open', resolved_by: null, resolved_ms: null }, 'none'],
    ['stale host with an acknowledged problem', 'stale', { status: 'acknowledged', resolved_by: null, resolved_ms: null }, 'none'],
    ['auto-resolved earlier', 'stale', resolved('auto', 1), 'reopen'],
    ['manually resolved within the cooldown', 'stale', resolved('manual', 719), 'none'],
    ['manually resolved after the cooldown', 'stale', resolved('manual', 720), 'reopen'],
  ])('%s → %s', (_name, status, problem, expected) => {
    expect(silenceAction(status, problem, now, 720)).toBe(expected);
  });
});

describe('formatSilence', () => {
  it.each([
    [40_000, '40 s'],
    [12 * MIN, '12 min'],
    [300 * MIN, '5 h'],
    [303 * MIN, '5 h 3 min'],
  ])('%d ms → %s', (ms, text) => expect(formatSilence(ms)).toBe(text));
});
