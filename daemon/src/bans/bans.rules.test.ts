import { describe, expect, it } from 'vitest';
import { banAddress, banDuration, unbannableScope, cidrContains, ipsetAddScript, ipsetDelScript, neverBanMatch, parseCidr, type BanAddress } from './bans.rules.js';

describe('banAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', 4],
    [' 198.51.100.20 ', '198.51.100.20', 4],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1', 6],
    ['2001:db8:0:1:0:0:0:0', '2001:db8:0:1::', 6],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1', 6],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1', 6],
    ['::ffff:203.0.113.9', '203.0.113.9', 4],
    ['10.1.2.3', '10.1.2.3', 4],
  ])('%s is banned as %s', (raw, address, family) => {
    expect(banAddress(raw)).toEqual({ address, family });
  });

  it.each([
    ['203.0.113.0/24', /range/],
    ['203.0.113.7; reboot', /not an IPv4/],
    ["203.0.113.7' '", /not an IPv4/],
    ['$(id)', /not an IPv4/],
    ['fe80::1%eth0', /not an IPv4/],
    ['[2001:db8::1]', /not an IPv4/],
    ['203.0.113.07', /not an IPv4/],
    ['256.1.1.1', /not an IPv4/],
    ['example.com', /not an IPv4/],
  ])('%s is refused', (raw, why) => {
    const r = banAddress(raw);
    expect(r).toHaveProperty('refused');
    expect((r as { refused: string }).refused).toMatch(why);
  });

  it.each([
    ['127.0.0.1', 4, /loopback/],
    ['::1', 6, /loopback/],
    ['0.0.0.0', 4, /unspecified/],
    ['224.0.0.1', 4, /multicast/],
    ['203.0.113.7', 4, null],
    ['10.0.0.1', 4, null],
  ] as const)('%s is in an unbannable range: %s', (address, family, why) => {
    const r = unbannableScope({ address, family });
    if (why === null) expect(r).toBeNull();
    else expect(r).toMatch(why);
  });
});

describe('never-ban ranges', () => {
  const v4 = (a: string): BanAddress => ({ address: a, family: 4 });
  it.each([
    ['198.51.100.0/24', '198.51.100.200', true],
    ['198.51.100.0/24', '198.51.101.1', false],
    ['10.0.0.0/8', '10.200.3.4', true],
    ['0.0.0.0/0', '203.0.113.1', true],
    ['203.0.113.5', '203.0.113.5', true],
    ['203.0.113.5', '203.0.113.6', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/48', '2001:db8:1::1', false],
    ['2001:db8::/64', '198.51.100.1', false],
  ])('%s contains %s: %s', (range, address, inside) => {
    const cidr = parseCidr(range)!;
    expect(cidr).not.toBeNull();
    const a: BanAddress = address.includes(':') ? { address, family: 6 } : v4(address);
    expect(cidrContains(cidr, a)).toBe(inside);
  });

  it.each(['10.0.0.0/33', '2001:db8::/129', 'x/8', '10.0.0.0/8/8', '10.0.0.0/a'])('%s is not a range', (text) => {
    expect(parseCidr(text)).toBeNull();
  });

  it('names the first entry that matches', () => {
    const entries = [
      { range: parseCidr('192.0.2.0/24')!, why: 'the never-ban list' },
      { range: parseCidr('198.51.100.7')!, why: 'a console sign-in address' },
    ];
    expect(neverBanMatch(v4('198.51.100.7'), entries)?.why).toBe('a console sign-in address');
    expect(neverBanMatch(v4('198.51.100.8'), entries)).toBeNull();
  });
});

describe('banDuration (repeat offenders)', () => {
  it.each([
    [3600, 0, 604_800, 3600],
    [3600, 1, 604_800, 7200],
    [3600, 3, 604_800, 28_800],
    [3600, 10, 604_800, 604_800],
    [3600, 60, 604_800, 604_800],
    [1_000_000, 0, 604_800, 1_000_000],
    [1_000_000, 5, 9_000_000, 2_147_483],
  ])('%i s after %i bans, capped at %i: %i s', (requested, previous, max, expected) => {
    expect(banDuration(requested, previous, max)).toBe(expected);
  });
});

describe('ipset scripts', () => {
  it('creates the set as ssh-monitor does and adds the address with a timeout', () => {
    expect(ipsetAddScript({ address: '203.0.113.7', family: 4 }, 3600)).toBe(
      "sudo -n ipset create 'ssh_monitor_ban' hash:ip family inet timeout 0 -exist && sudo -n ipset add 'ssh_monitor_ban' '203.0.113.7' timeout 3600 -exist",
    );
    expect(ipsetAddScript({ address: '2001:db8::1', family: 6 }, 60)).toContain("ipset add 'ssh_monitor_ban_v6' '2001:db8::1' timeout 60 -exist");
    expect(ipsetDelScript({ address: '2001:db8::1', family: 6 })).toBe("sudo -n ipset del 'ssh_monitor_ban_v6' '2001:db8::1' -exist");
  });

  it('refuses to build a command from anything but a canonical address', () => {
    expect(() => ipsetAddScript({ address: "203.0.113.7' ; reboot '", family: 4 }, 60)).toThrow(/canonical/);
    expect(() => ipsetDelScript({ address: '2001:DB8::1', family: 6 })).toThrow(/canonical/);
    expect(() => ipsetAddScript({ address: '203.0.113.7', family: 4 }, 1.5)).toThrow(/timeout/);
  });
});
