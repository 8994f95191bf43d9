import { describe, expect, it } from 'vitest';
import { isPrivateAddress, pushAddressAllowed, pushEndpointProblem } from './push.policy.js';

const POLICY = { hosts: ['fcm.googleapis.com', '*.push.services.mozilla.com'], allowLoopback: false };

describe('pushEndpointProblem', () => {
  it.each([
    ['https://fcm.googleapis.com/fcm/send/abc', POLICY, null],
    ['https://updates.push.services.mozilla.com/wpush/v2/x', POLICY, null],
    ['https://push.services.mozilla.com/x', POLICY, /known push service/],
    ['https://evilpush.services.mozilla.com.evil.test/x', POLICY, /known push service/],
    ['http://fcm.googleapis.com/x', POLICY, /https/],
    ['https://fcm.googleapis.com:8443/x', POLICY, /default https port/],
    ['https://u:p@fcm.googleapis.com/x', POLICY, /credentials/],
    ['https://142.250.1.1/x', POLICY, /not an address/],
    ['http://127.0.0.1:9000/push', POLICY, /https/],
    ['http://127.0.0.1:9000/push', { ...POLICY, allowLoopback: true }, null],
    ['http://[::1]:9000/push', { ...POLICY, allowLoopback: true }, null],
    ['http://localhost:9000/push', { ...POLICY, allowLoopback: true }, /https/],
    ['not a url', POLICY, /not a URL/],
  ])('%s → %s', (url, policy, problem) => {
    const result = pushEndpointProblem(url, policy);
    if (problem === null) expect(result).toBeNull();
    else expect(result).toMatch(problem);
  });
});

describe('private addresses', () => {
  it.each([
    ['10.1.2.3', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['127.0.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:a00:1', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::a9fe:a9fe', true],
    ['2a00:1450:4001::200e', false],
    ['not-an-ip', true],
  ])('%s private: %s', (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected);
  });

  it('lets loopback through only when allowed and named literally in the endpoint', () => {
    const loop = { ...POLICY, allowLoopback: true };
    expect(pushAddressAllowed('127.0.0.1', loop, true)).toBe(true);
    expect(pushAddressAllowed('127.0.0.1', loop, false)).toBe(false);
    expect(pushAddressAllowed('127.0.0.1', POLICY, true)).toBe(false);
    expect(pushAddressAllowed('10.0.0.1', loop, true)).toBe(false);
    expect(pushAddressAllowed('8.8.8.8', POLICY, false)).toBe(true);
  });
});
