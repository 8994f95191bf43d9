import { describe, expect, it } from 'vitest';
import { parseConfig, productProgress, pushable } from './agents.rules';

describe('agent update helpers', () => {
  it('counts the progress of the updates to the latest version only', () => {
    const jobs = [
      { product: 'rdp-login-monitor', target_version: '2.1.8-SAC', state: 'success' as const },
      { product: 'rdp-login-monitor', target_version: '2.1.8-SAC', state: 'failed' as const },
      { product: 'rdp-login-monitor', target_version: '2.1.8-SAC', state: 'fallback' as const },
      { product: 'rdp-login-monitor', target_version: '2.1.7-SAC', state: 'success' as const },
      { product: 'ssh-monitor', target_version: '2.1.8-SAC', state: 'pending' as const },
    ];
    expect(productProgress(jobs, 'rdp-login-monitor', '2.1.8-SAC')).toEqual({ total: 3, done: 1, failed: 1, running: 1 });
    expect(productProgress(jobs, 'rdp-login-monitor', null)).toEqual({ total: 0, done: 0, failed: 0, running: 0 });
  });

  it('accepts a JSON object only, bounded as the server bounds it', () => {
    expect(parseConfig('{"HeartbeatMinutes": 5}')).toEqual({ ok: true, config: { HeartbeatMinutes: 5 } });
    expect(parseConfig('  ')).toEqual({ ok: true, config: {} });
    expect(parseConfig('{"a": ')).toEqual({ ok: false, reason: 'json' });
    expect(parseConfig('[1, 2]')).toEqual({ ok: false, reason: 'object' });
    expect(parseConfig('null')).toEqual({ ok: false, reason: 'object' });
    expect(parseConfig(JSON.stringify({ blob: 'x'.repeat(70_000) }))).toEqual({ ok: false, reason: 'size' });
  });

  it('offers "push now" while the agent has not taken or finished the job', () => {
    expect(['pending', 'started', 'fallback', 'success', 'failed'].filter((s) => pushable(s as never))).toEqual(['pending', 'started']);
  });
});
