import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseTrustedProxies } from '../trusted-proxies.js';
import { resolveClientAddress, resolveClientHttps } from './client-address.js';

const request = (peer: string, forwardedFor?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } }) as unknown as IncomingMessage;

describe('resolveClientAddress', () => {
  const trusted = parseTrustedProxies('10.0.0.0/8, 192.168.1.1, fd00::/8');

  it('takes the rightmost forwarded address that is not a trusted proxy', () => {
    expect(resolveClientAddress(request('10.0.0.5', '198.51.100.1, 203.0.113.9, 10.2.3.4'), trusted)).toBe('203.0.113.9');
    expect(resolveClientAddress(request('::ffff:192.168.1.1', '203.0.113.9'), trusted)).toBe('203.0.113.9');
    expect(resolveClientAddress(request('fd00::1', ['2001:db8::7', 'fd00::2']), trusted)).toBe('2001:db8::7');
    expect(resolveClientAddress(request('10.0.0.5', '[2001:db8::8]:4711'), trusted)).toBe('2001:db8::8');
    expect(resolveClientAddress(request('10.0.0.5', '203.0.113.10:5000'), trusted)).toBe('203.0.113.10');
  });

  it('keeps the peer when it is not trusted, or when no header or no list is given', () => {
    expect(resolveClientAddress(request('203.0.113.1', '198.51.100.1'), trusted)).toBe('203.0.113.1');
    expect(resolveClientAddress(request('::ffff:203.0.113.1', '198.51.100.1'), trusted)).toBe('203.0.113.1');
    expect(resolveClientAddress(request('10.0.0.5'), trusted)).toBe('10.0.0.5');
    expect(resolveClientAddress(request('10.0.0.5', '198.51.100.1'), parseTrustedProxies(''))).toBe('10.0.0.5');
  });

  it('stops at the trusted hop that passed on a malformed entry, and at the farthest hop when all are trusted', () => {
    expect(resolveClientAddress(request('10.0.0.5', 'evil, 10.9.9.9'), trusted)).toBe('10.9.9.9');
    expect(resolveClientAddress(request('10.0.0.5', 'unknown'), trusted)).toBe('10.0.0.5');
    expect(resolveClientAddress(request('10.0.0.5', '10.1.1.1, 10.2.2.2'), trusted)).toBe('10.1.1.1');
  });
});

describe('resolveClientHttps', () => {
  const trusted = parseTrustedProxies('10.0.0.0/8');
  const proxied = (peer: string, proto: string | undefined, encrypted = false) =>
    ({ socket: { remoteAddress: peer, encrypted }, headers: proto === undefined ? {} : { 'x-forwarded-proto': proto } }) as unknown as IncomingMessage;

  it('believes X-Forwarded-Proto only from a trusted proxy, and only its last entry', () => {
    expect(resolveClientHttps(proxied('10.0.0.5', 'https'), trusted)).toBe(true);
    expect(resolveClientHttps(proxied('10.0.0.5', 'http, HTTPS'), trusted)).toBe(true);
    expect(resolveClientHttps(proxied('10.0.0.5', 'https, http'), trusted)).toBe(false);
    expect(resolveClientHttps(proxied('10.0.0.5', undefined), trusted)).toBe(false);
    expect(resolveClientHttps(proxied('203.0.113.1', 'https'), trusted)).toBe(false);
    expect(resolveClientHttps(proxied('10.0.0.5', 'https'), parseTrustedProxies(''))).toBe(false);
  });

  it('is https on a TLS socket whatever the headers say', () => {
    expect(resolveClientHttps(proxied('203.0.113.1', 'http', true), trusted)).toBe(true);
  });
});
