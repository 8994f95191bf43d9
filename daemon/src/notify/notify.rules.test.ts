import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  configuredChannels,
  dueReportDay,
  eventChannels,
  loginLockChannels,
  parseTimeOfDay,
  problemOpenedChannels,
  problemResolvedChannels,
  type Policy,
} from './notify.rules.js';
import type { NotifyChannel } from '../../../shared/src/index.js';
import type { NotifySettings } from './notify.types.js';

const ALL: NotifyChannel[] = ['telegram', 'webhook', 'smtp', 'push'];
const policy = (over: Partial<Policy> = {}): Policy => ({
  minSeverity: 'high',
  enabledChannels: ALL,
  lifecycleChannels: ['telegram'],
  hiddenTypes: [],
  severityOverrides: {},
  language: 'en',
  ...over,
});
const ev = (type: string, severity: 'info' | 'warning' | 'high' | 'critical', telegram_via: unknown = 'sac') => ({ type, severity, telegram_via });

describe('eventChannels (the policy matrix)', () => {
  it.each([
    ['high event → all channels', ev('rdp.bruteforce.burst', 'high'), policy(), ALL],
    ['critical event → all channels', ev('privilege.sudo.root', 'critical'), policy(), ALL],
    ['warning event → nothing even with min info', ev('rdp.login.failed', 'warning'), policy({ minSeverity: 'info' }), []],
    ['info event → nothing', ev('agent.heartbeat', 'info'), policy({ minSeverity: 'info' }), []],
    ['high event below min critical → nothing', ev('rdp.bruteforce.burst', 'high'), policy({ minSeverity: 'critical' }), []],
    ['rdp.login.success regardless of min', ev('rdp.login.success', 'info'), policy({ minSeverity: 'critical' }), ALL],
    ['ssh.login.success regardless of min', ev('ssh.login.success', 'info'), policy({ minSeverity: 'critical' }), ALL],
    ['rdg.connection.* regardless of min', ev('rdg.connection.failed', 'warning'), policy({ minSeverity: 'critical' }), ALL],
    ['rdg.connectionx is not rdg.connection.*', ev('rdg.connectionx.a', 'warning'), policy(), []],
    ['lifecycle → lifecycle channels only', ev('agent.lifecycle', 'info'), policy({ lifecycleChannels: ['telegram', 'smtp'] }), ['telegram', 'smtp']],
    ['agent.update.* is lifecycle kin', ev('agent.update.failed', 'warning'), policy({ lifecycleChannels: ['webhook'] }), ['webhook']],
    ['lifecycle channel not enabled → dropped', ev('agent.lifecycle', 'info'), policy({ enabledChannels: ['smtp'], lifecycleChannels: ['telegram'] }), []],
    ['hidden type never', ev('rdp.login.success', 'info'), policy({ hiddenTypes: ['rdp.login.success'] }), []],
    ['hidden prefix hides sub-types', ev('rdg.connection.failed', 'warning'), policy({ hiddenTypes: ['rdg.connection'] }), []],
    ['hidden wildcard hides sub-types', ev('rdp.bruteforce.burst', 'high'), policy({ hiddenTypes: ['rdp.*'] }), []],
    ['a prefix is not a partial word', ev('agent.tests.x', 'high'), policy({ hiddenTypes: ['agent.test'] }), ALL],
    ['severity override raises a warning type', ev('smb.admin_share.access', 'warning'), policy({ severityOverrides: { 'smb.admin_share': 'high' } }), ALL],
    ['severity override lowers a high type', ev('rdp.bruteforce.burst', 'high'), policy({ severityOverrides: { 'rdp.bruteforce.burst': 'warning' } }), []],
    ['telegram_via agent → not Telegram', ev('rdp.bruteforce.burst', 'high', 'agent'), policy(), ['webhook', 'smtp', 'push']],
    ['telegram_via agent on an always-sent type', ev('rdp.login.success', 'info', 'agent'), policy(), ['webhook', 'smtp', 'push']],
    ['only enabled channels', ev('rdp.bruteforce.burst', 'high'), policy({ enabledChannels: ['webhook'] }), ['webhook']],
  ] as const)('%s', (_name, e, p, expected) => {
    expect(eventChannels(e, p, ALL)).toEqual(expected);
  });

  it('only configured channels', () => {
    expect(eventChannels(ev('rdp.bruteforce.burst', 'high'), policy(), ['smtp', 'telegram'])).toEqual(['telegram', 'smtp']);
  });
});

describe('problems, resolution, login lock', () => {
  it('a new problem goes out at or above the minimum', () => {
    expect(problemOpenedChannels({ type: 'rdp.login.failed', severity: 'warning' }, policy({ minSeverity: 'warning' }), ALL)).toEqual(ALL);
    expect(problemOpenedChannels({ type: 'rdp.login.failed', severity: 'warning' }, policy(), ALL)).toEqual([]);
    expect(problemOpenedChannels({ type: 'x.y', severity: 'critical' }, policy({ hiddenTypes: ['x'] }), ALL)).toEqual([]);
  });
  it('resolution follows the channels that carried the opening', () => {
    expect(problemResolvedChannels(['smtp', 'telegram'], policy(), ALL)).toEqual(['telegram', 'smtp']);
    expect(problemResolvedChannels(['smtp'], policy({ enabledChannels: ['telegram'] }), ALL)).toEqual([]);
  });
  it('the lock alert goes to the chat messenger only', () => {
    expect(loginLockChannels(policy(), ALL)).toEqual(['telegram']);
    expect(loginLockChannels(policy(), ['smtp'])).toEqual([]);
  });
});

describe('configuredChannels', () => {
  const base: NotifySettings = {
    telegram: { botToken: null, chatIds: [], apiBase: 'https://api.telegram.org' },
    webhook: { url: null, secret: null, headers: {}, timeoutMs: 1000 },
    smtp: { url: null, from: null, to: [] },
    publicUrl: null,
    push: { subject: 'mailto:a@b', vapid: null },
    policy: policy(),
    report: { time: '09:00', timezone: 'UTC' },
  };
  it('needs every required field', () => {
    expect(configuredChannels(base, false)).toEqual([]);
    expect(
      configuredChannels(
        { ...base, telegram: { ...base.telegram, botToken: 't', chatIds: ['1'] }, smtp: { url: 'smtp://x', from: 'a@b', to: [] } },
        true,
      ),
    ).toEqual(['telegram', 'push']);
  });
});

describe('afterFailure (retry with exponential backoff)', () => {
  const retry = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles the delay and caps it', () => {
    const delays = [1, 2, 3, 4].map((a) => {
      const r = afterFailure(a, 5, { permanent: false, retryAfterMs: null }, retry, 0);
      return r.status === 'pending' ? r.next_attempt_ms : -1;
    });
    expect(delays).toEqual([100, 200, 400, 800]);
    const capped = afterFailure(4, 9, { permanent: false, retryAfterMs: null }, { ...retry, maxDelayMs: 500 }, 0);
    expect(capped).toEqual({ status: 'pending', next_attempt_ms: 500 });
  });
  it('fails after the last attempt or on a permanent error', () => {
    expect(afterFailure(5, 5, { permanent: false, retryAfterMs: null }, retry, 0)).toEqual({ status: 'failed' });
    expect(afterFailure(1, 5, { permanent: true, retryAfterMs: null }, retry, 0)).toEqual({ status: 'failed' });
  });
  it('waits at least retry_after', () => {
    expect(afterFailure(1, 5, { permanent: false, retryAfterMs: 3000 }, retry, 10)).toEqual({ status: 'pending', next_attempt_ms: 3010 });
  });
});

describe('daily report time', () => {
  it('reads HH:MM', () => {
    expect(parseTimeOfDay('09:00')).toBe(540);
    expect(parseTimeOfDay('24:00')).toBeNull();
    expect(parseTimeOfDay('9:00')).toBeNull();
  });
  it('is due from the configured local time on, for the local day', () => {
    const t = Date.parse('2026-06-03T05:59:00Z'); // 08:59 in Moscow
    expect(dueReportDay(t, '09:00', 'Europe/Moscow')).toBeNull();
    expect(dueReportDay(t + 60_000, '09:00', 'Europe/Moscow')).toBe('2026-06-03');
    // 23:30 UTC on the 3rd is already the 4th in Vladivostok (+10)
    expect(dueReportDay(Date.parse('2026-06-03T23:30:00Z'), '09:00', 'Asia/Vladivostok')).toBe('2026-06-04');
  });
});
