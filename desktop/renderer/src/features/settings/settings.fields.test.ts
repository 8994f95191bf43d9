import { describe, expect, it } from 'vitest';
import { SETTINGS_CATEGORIES } from '../../../../../shared/src/settings.schema';
import { checkField, fieldsOf, fromInput, KEPT_SECRET, mapHasNumbers, secretsNeededAgain, toInput } from './settings.fields';

describe('settings forms from the shared schemas', () => {
  it('derives a field for every key of every category, secrets write-only', () => {
    for (const c of SETTINGS_CATEGORIES) expect(fieldsOf(c).length).toBeGreaterThan(0);
    const kinds = Object.fromEntries(fieldsOf('telegram').map((f) => [f.key, f.kind]));
    expect(kinds).toEqual({ bot_token: 'secret', chat_ids: 'lines', api_base: 'text' });
    const policy = Object.fromEntries(fieldsOf('notification_policy').map((f) => [f.key, f]));
    expect(policy.min_severity).toMatchObject({ kind: 'enum', options: ['info', 'warning', 'high', 'critical'] });
    expect(policy.enabled_channels).toMatchObject({ kind: 'enumList', options: ['telegram', 'webhook', 'smtp', 'push'] });
    expect(policy.report_timezone).toMatchObject({ kind: 'text', nullable: true });
    expect(fieldsOf('git_repos').find((f) => f.key === 'repos')?.kind).toBe('repos');
    expect(fieldsOf('escalation').find((f) => f.key === 'policies')?.kind).toBe('policies');
    const ssh = Object.fromEntries(fieldsOf('ssh_admin').map((f) => [f.key, f.kind]));
    expect(ssh).toMatchObject({ private_key: 'secretText', known_hosts: 'longText', passphrase: 'secret', password: 'secret' });
    // No category is edited as raw JSON any more.
    for (const c of SETTINGS_CATEGORIES) expect(fieldsOf(c).filter((f) => f.kind === 'json').map((f) => `${c}.${f.key}`)).toEqual([]);
    expect(fieldsOf('windows_admin').find((f) => f.key === 'verify_tls')?.kind).toBe('boolean');
    expect(toInput(fieldsOf('telegram')[0], { set: true })).toBe('');
  });

  it('converts inputs to API values and back', () => {
    const [, chatIds] = fieldsOf('telegram');
    expect(fromInput(chatIds, ' -100123 \n\n@soc_alerts ')).toEqual(['-100123', '@soc_alerts']);
    expect(toInput(chatIds, ['-1', '-2'])).toBe('-1\n-2');
    const byProduct = fieldsOf('host_status').find((f) => f.key === 'stale_minutes_by_product')!;
    expect(mapHasNumbers('host_status', 'stale_minutes_by_product')).toBe(true);
    expect(fromInput(byProduct, 'ssh-monitor = 60\nrdp-login-monitor=300', true)).toEqual({ 'ssh-monitor': 60, 'rdp-login-monitor': 300 });
    expect(() => fromInput(byProduct, 'no equals sign', true)).toThrow(/key = value/);
    const tz = fieldsOf('notification_policy').find((f) => f.key === 'report_timezone')!;
    expect(fromInput(tz, '  ')).toBeNull();
    const knownHosts = fieldsOf('ssh_admin').find((f) => f.key === 'known_hosts')!;
    const lines = 'host1 ssh-ed25519 AAAA1\nhost2 ssh-ed25519 AAAA2';
    expect(fromInput(knownHosts, `${lines}\n`)).toBe(lines);
    expect(toInput(knownHosts, lines)).toBe(lines);
  });

  it('shows stored webhook header values masked and sends them back as keep-markers', () => {
    const headers = fieldsOf('webhook').find((f) => f.key === 'headers')!;
    expect(headers.kind).toBe('map');
    const text = String(toInput(headers, { Authorization: { set: true }, 'X-Team': { set: true } }));
    expect(text).toBe(`Authorization = ${KEPT_SECRET}\nX-Team = ${KEPT_SECRET}`);
    expect(fromInput(headers, `${text.split('\n')[0]}\nX-Team = blue`)).toEqual({ Authorization: { set: true }, 'X-Team': 'blue' });
  });

  it('validates with the same schema the daemon uses', () => {
    expect(checkField('webhook', 'url', 'ftp://x')).toMatch(/http/);
    expect(checkField('webhook', 'url', 'https://hooks.example/sac')).toBeNull();
    expect(checkField('notification_policy', 'report_time', '25:00')).toMatch(/HH:MM/);
    expect(checkField('correlation', 'window_minutes', 0)).not.toBeNull();
  });

  it('names the stored secrets a changed destination needs again', () => {
    const stored = (k: string) => k !== 'passphrase';
    expect(secretsNeededAgain('ssh_admin', ['port', 'known_hosts'], stored)).toEqual({ secrets: ['private_key', 'password'], moved: ['port', 'known_hosts'] });
    expect(secretsNeededAgain('ssh_admin', ['private_key'], stored)).toEqual({ secrets: [], moved: [] });
    expect(secretsNeededAgain('windows_admin', ['verify_tls'], () => true)).toEqual({ secrets: ['password'], moved: ['verify_tls'] });
    expect(secretsNeededAgain('smtp', ['url'], () => true)).toEqual({ secrets: [], moved: [] });
  });
});
