import { describe, expect, it } from 'vitest';
import { actionTargetOf } from './action-target.js';
import { isTargetAddress, urlHost } from './target-address.js';
import { createWinRmClient } from './winrm/index.js';

type Fields = Parameters<typeof actionTargetOf>[0];

function host(overrides: Partial<Fields>): Fields {
  return { id: 'h', hostname: 'WS-01', ipv4: null, ips: [], observed_ip: null, pinned_address: null, pinned_winrm_name: null, ...overrides };
}

describe('action targets', () => {
  it.each(['ws-01', 'WS-01.corp.example', 'ws01.corp.example.', '10.0.0.5', 'fe80::1', '2001:db8::5', 'a'.repeat(63) + '.example'])('accepts %s as a host', (v) => {
    expect(isTargetAddress(v)).toBe(true);
  });

  it.each([
    'evil.example/#',
    'evil.example:5985',
    'http://evil.example',
    'ws 01',
    '',
    '-ws.example',
    'ws-.example',
    'ws..example',
    'a'.repeat(64) + '.example',
    '10.0.0.256',
    '1.2.3',
    'fe80::1%eth0',
    '[fe80::1]',
    'evil.example\r\nHost: x',
    'xn--ws@evil',
  ])('refuses %j as a host', (v) => {
    expect(isTargetAddress(v)).toBe(false);
  });

  it('brackets IPv6 literals in URLs only', () => {
    expect(urlHost('2001:db8::5')).toBe('[2001:db8::5]');
    expect(urlHost('10.0.0.5')).toBe('10.0.0.5');
    expect(urlHost('ws-01.corp.example')).toBe('ws-01.corp.example');
  });

  it('takes a pinned address (and name) over everything the agent or SAC saw', () => {
    const h = host({ ipv4: '10.0.0.66', observed_ip: '10.0.0.66', pinned_address: '10.0.0.20', pinned_winrm_name: 'ws-01.corp.example' });
    expect(actionTargetOf(h, [h])).toEqual({ verified: true, source: 'pinned', address: '10.0.0.20', name: 'ws-01.corp.example' });
    const noName = host({ pinned_address: '10.0.0.20' });
    expect(actionTargetOf(noName, [noName])).toMatchObject({ verified: true, address: '10.0.0.20', name: '10.0.0.20' });
  });

  it('verifies the observed address when the agent reports it too', () => {
    const h = host({ ipv4: '10.0.0.7', ips: ['10.0.0.5', '10.0.0.7'], observed_ip: '10.0.0.7' });
    expect(actionTargetOf(h, [h])).toEqual({ verified: true, source: 'observed', address: '10.0.0.7', name: '10.0.0.7' });
  });

  it('leaves a host unverified when the agent reports an address it does not connect from, or none was seen', () => {
    const claimer = host({ hostname: 'ATTACKER-WS', ipv4: '10.0.0.20', observed_ip: '10.0.0.66' });
    expect(actionTargetOf(claimer, [claimer])).toEqual({ verified: false, reason_code: 'mismatch', reason: expect.stringMatching(/connects from 10\.0\.0\.66 but reports 10\.0\.0\.20/) });
    const unseen = host({ ipv4: '10.0.0.20' });
    expect(actionTargetOf(unseen, [unseen])).toMatchObject({ verified: false, reason_code: 'unseen' });
  });

  it('leaves hosts unverified whose agents connect from one shared address (NAT, an unconfigured proxy)', () => {
    const a = host({ id: 'a', hostname: 'WS-A', ipv4: '192.0.2.1', observed_ip: '192.0.2.1' });
    const b = host({ id: 'b', hostname: 'WS-B', ipv4: '10.0.0.8', observed_ip: '192.0.2.1' });
    expect(actionTargetOf(a, [a, b])).toEqual({ verified: false, reason_code: 'shared', reason: 'the agents of WS-A, WS-B all connect from 192.0.2.1' });
  });

  it('lets the WinRM client build no URL for a target that is not a host name or IP literal', async () => {
    const client = createWinRmClient({ username: 'CORP\\svc', password: 'pw', transport: 'http', port: 1 });
    await expect(client.run('evil.example/#', 'whoami')).rejects.toMatchObject({ code: 'winrm/invalid_target' });
    await expect(client.run(['ws-01', 'evil.example:80'], 'whoami')).rejects.toMatchObject({ code: 'winrm/invalid_target' });
    await expect(client.run({ address: '10.0.0.5', name: 'evil.example/#' }, 'whoami')).rejects.toMatchObject({ code: 'winrm/invalid_target' });
  });
});
