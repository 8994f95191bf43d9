import { describe, expect, it } from 'vitest';
import { addressScope, parseAddress, v6Words } from './address.rules.js';

describe('parseAddress and addressScope', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8', 'public'],
    [' 1.1.1.1 ', '1.1.1.1', 'public'],
    ['10.1.2.3', '10.1.2.3', 'private'],
    ['172.31.255.255', '172.31.255.255', 'private'],
    ['172.32.0.1', '172.32.0.1', 'public'],
    ['192.168.0.10', '192.168.0.10', 'private'],
    ['100.64.0.1', '100.64.0.1', 'cgnat'],
    ['100.128.0.1', '100.128.0.1', 'public'],
    ['127.0.0.1', '127.0.0.1', 'loopback'],
    ['169.254.10.20', '169.254.10.20', 'link_local'],
    ['192.0.2.1', '192.0.2.1', 'documentation'],
    ['198.51.100.255', '198.51.100.255', 'documentation'],
    ['203.0.113.45', '203.0.113.45', 'documentation'],
    ['0.0.0.0', '0.0.0.0', 'unspecified'],
    ['224.0.0.251', '224.0.0.251', 'multicast'],
    ['255.255.255.255', '255.255.255.255', 'reserved'],
    ['198.19.0.1', '198.19.0.1', 'reserved'],
    ['::ffff:203.0.113.5', '203.0.113.5', 'documentation'],
    ['::FFFF:10.0.0.1', '10.0.0.1', 'private'],
    ['2606:4700::1111', '2606:4700::1111', 'public'],
    ['[2a00:1450:4001::1]', '2a00:1450:4001::1', 'public'],
    ['fe80::1%eth0', 'fe80::1', 'link_local'],
    ['fd12:3456::1', 'fd12:3456::1', 'private'],
    ['2001:db8::1', '2001:db8::1', 'documentation'],
    ['3fff:0fff::1', '3fff:0fff::1', 'documentation'],
    ['::1', '::1', 'loopback'],
    ['::', '::', 'unspecified'],
    ['ff02::1', 'ff02::1', 'multicast'],
  ])('%s is %s, %s', (raw, ip, scope) => {
    const a = parseAddress(raw);
    expect(a?.ip).toBe(ip);
    expect(addressScope(a!)).toBe(scope);
  });

  it.each(['-', 'N/A', '', 'RDS01', '1.2.3', '1.2.3.4:3389', '999.1.1.1', 'x'.repeat(100)])('%s is not an address', (raw) => {
    expect(parseAddress(raw)).toBeNull();
  });

  it('reads IPv6 into four words, an IPv4 tail included', () => {
    expect(v6Words('2001:db8::1')).toEqual([0x20010db8, 0, 0, 1]);
    expect(v6Words('::ffff:192.0.2.1')).toEqual([0, 0, 0xffff, 0xc0000201]);
    expect(v6Words('1:2:3:4:5:6:7:8')).toEqual([0x10002, 0x30004, 0x50006, 0x70008]);
  });
});
