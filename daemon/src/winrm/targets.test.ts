import { describe, expect, it } from 'vitest';
import { winRmTargetsOf } from './targets.js';

describe('winRmTargetsOf', () => {
  it('orders FQDN, host name, current IP, then older IPs newest first, without duplicates', () => {
    expect(winRmTargetsOf({ fqdn: 'ws01.corp.example', hostname: 'WS01', ipv4: '10.0.0.7', ips: ['10.0.0.5', '10.0.0.6', '10.0.0.7'] })).toEqual([
      'ws01.corp.example',
      'WS01',
      '10.0.0.7',
      '10.0.0.6',
      '10.0.0.5',
    ]);
  });

  it('skips what the host never reported', () => {
    expect(winRmTargetsOf({ fqdn: null, hostname: 'ws02', ipv4: null })).toEqual(['ws02']);
    expect(winRmTargetsOf({ fqdn: 'WS03', hostname: 'ws03', ipv4: ' ' })).toEqual(['WS03']);
  });
});
