import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Host } from '../store/index.js';
import { verifyHostKey } from '../ssh/index.js';
import { ActionRateLimiter, eventSessionId, gatewayTarget, hostForTarget } from './actions.rules.js';

function host(overrides: Partial<Host>): Host {
  return {
    id: 'h',
    key: 'k',
    hostname: 'WS-01',
    os_family: 'windows',
    display_name: null,
    fqdn: null,
    ipv4: null,
    ips: [],
    os_version: null,
    timezone: null,
    agent_product: 'rdp-login-monitor',
    agent_version: '2.1.7-SAC',
    agent_instance_id: null,
    agent_instance_ids: [],
    observed_ip: null,
    pinned_address: null,
    pinned_winrm_name: null,
    ssh_admin_ok: null,
    ssh_admin_checked_at: null,
    first_seen_ms: 0,
    last_seen_ms: 0,
    ...overrides,
  };
}

describe('remote action rules', () => {
  it.each([
    ['10.0.0.5', '10.0.0.5'],
    ['10.0.0.5:3389', '10.0.0.5'],
    ['[fe80::1]:3389', 'fe80::1'],
    ['ws-01.corp.local', 'ws-01.corp.local'],
    ['N/A', null],
    ['-', null],
    [undefined, null],
  ])('reads the RD Gateway target %s as %s', (raw, target) => {
    expect(gatewayTarget(raw === undefined ? {} : { internal_ip: raw })).toBe(target);
  });

  it('maps a target to the one Windows host that claims it, by address or name', () => {
    const hosts = [
      host({ id: 'ws01', hostname: 'WS-01', ipv4: '10.0.0.5', ips: ['10.0.0.4', '10.0.0.5'] }),
      host({ id: 'named', hostname: 'WS-02', fqdn: 'ws-02.corp.local', observed_ip: '10.0.0.6' }),
      host({ id: 'linux', hostname: 'web', os_family: 'linux', ipv4: '10.0.0.9' }),
    ];
    const found = (target: string) => hostForTarget(hosts, target).found?.id ?? null;
    expect(found('10.0.0.5')).toBe('ws01');
    expect(found('10.0.0.6')).toBe('named');
    expect(found('ws-02')).toBe('named');
    expect(found('WS-02.corp.local')).toBe('named');
    expect(found('ws-02.other.domain')).toBe('named');
    // An address the host reported once but no longer does is no claim (DHCP moves on).
    expect(found('10.0.0.4')).toBeNull();
    expect(found('10.0.0.9')).toBeNull();
    expect(hostForTarget(hosts, '10.0.0.77')).toEqual({ found: null, claimants: [] });
  });

  it('never picks between hosts that claim one target, however recently seen; a pin decides', () => {
    const victim = host({ id: 'victim', hostname: 'WS-VICTIM', ipv4: '10.0.0.20', observed_ip: '10.0.0.20', last_seen_ms: 1 });
    const attacker = host({ id: 'attacker', hostname: 'ATTACKER-WS', ipv4: '10.0.0.20', fqdn: 'ws-victim', observed_ip: '10.0.0.66', last_seen_ms: 2 });
    const byAddress = hostForTarget([victim, attacker], '10.0.0.20');
    expect(byAddress.found).toBeNull();
    expect(byAddress.found === null && byAddress.claimants.map((h) => h.hostname).sort()).toEqual(['ATTACKER-WS', 'WS-VICTIM']);
    expect(hostForTarget([victim, attacker], 'ws-victim').found).toBeNull();
    const pinned = { ...victim, pinned_address: '10.0.0.20' };
    expect(hostForTarget([pinned, attacker], '10.0.0.20').found?.id).toBe('victim');
  });

  it('takes the session an event names, as the agent writes it (strings), refusing session 0', () => {
    expect(eventSessionId({ session_id: '3' })).toBe(3);
    expect(eventSessionId({ target_session_id: 7 })).toBe(7);
    expect(eventSessionId({ session_id: '0' })).toBeNull();
    expect(eventSessionId({ session_id: 'N/A' })).toBeNull();
    expect(eventSessionId({})).toBeNull();
  });

  it('limits actions per user in a sliding minute', () => {
    const limiter = new ActionRateLimiter(2, 60_000);
    expect(limiter.take('a', 0)).toBeNull();
    expect(limiter.take('a', 1000)).toBeNull();
    expect(limiter.take('a', 2000)).toBe(58);
    expect(limiter.take('b', 2000)).toBeNull();
    expect(limiter.take('a', 60_001)).toBeNull();
  });
});

describe('known_hosts verification', () => {
  const key = randomBytes(51);
  const other = randomBytes(51);
  const b64 = key.toString('base64');

  it('matches plain, bracketed-port and hashed names; refuses others and unknown hosts', () => {
    expect(verifyHostKey(`web1,10.0.0.9 ssh-ed25519 ${b64}`, '10.0.0.9', 22, key)).toBe('match');
    expect(verifyHostKey(`[10.0.0.9]:2222 ssh-ed25519 ${b64}`, '10.0.0.9', 2222, key)).toBe('match');
    expect(verifyHostKey(`10.0.0.9 ssh-ed25519 ${b64}`, '10.0.0.9', 2222, key)).toBe('unknown');
    const salt = randomBytes(20);
    const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('web1').digest('base64')}`;
    expect(verifyHostKey(`${hashed} ssh-ed25519 ${b64}`, 'web1', 22, key)).toBe('match');
    expect(verifyHostKey(`${hashed} ssh-ed25519 ${b64}`, 'web2', 22, key)).toBe('unknown');
    expect(verifyHostKey(`web1 ssh-ed25519 ${b64}`, 'web1', 22, other)).toBe('mismatch');
    expect(verifyHostKey(`*.corp ssh-ed25519 ${b64}\n@revoked web1.corp ssh-ed25519 ${b64}`, 'web1.corp', 22, key)).toBe('revoked');
    expect(verifyHostKey('', 'web1', 22, key)).toBe('unknown');
  });
});
