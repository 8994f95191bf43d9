import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { SessionTokens } from './tokens.js';

const SECRET = 'a-test-secret-of-sufficient-length-000';

describe('SessionTokens', () => {
  let nowMs = Date.UTC(2026, 0, 1);
  const clock = { ...systemClock, now: () => nowMs };
  const tokens = new SessionTokens(SECRET, 3_600_000, clock);
  const user = { id: 'u-1', token_version: 3 };

  it('issues a token the verifier accepts until exp, by the injected clock', () => {
    const { token, expiresMs } = tokens.issue(user, { sessionId: 's-1', notAfterMs: nowMs + 86_400_000 });
    expect(expiresMs).toBe(nowMs + 3_600_000);
    expect(tokens.verify(token)).toEqual({ userId: 'u-1', tokenVersion: 3, sessionId: 's-1', expiresMs, device: null });
    nowMs += 3_600_000 - 1000;
    expect(tokens.verify(token)).not.toBeNull();
    nowMs += 2000;
    expect(tokens.verify(token)).toBeNull();
  });

  it('binds a device access token to the device and its generation, with its own lifetime', () => {
    nowMs = Date.now();
    const { token, expiresMs } = tokens.issue(user, { device: { id: 'd-1', generation: 2 }, ttlMs: 900_000 });
    expect(expiresMs).toBe(Math.floor(nowMs / 1000) * 1000 + 900_000);
    expect(tokens.verify(token)).toEqual({ userId: 'u-1', tokenVersion: 3, expiresMs, sessionId: null, device: { id: 'd-1', generation: 2 } });
    const forged = jwt.sign({ sub: 'u-1', tv: 3, dev: 'd-1' }, SECRET, { issuer: 'sac', audience: 'sac-console', expiresIn: 60 });
    expect(tokens.verify(forged)).toBeNull();
    const both = jwt.sign({ sub: 'u-1', tv: 3, dev: 'd-1', dg: 2, sid: 's' }, SECRET, { issuer: 'sac', audience: 'sac-console', expiresIn: 60 });
    expect(tokens.verify(both)).toBeNull();
  });

  it('never issues a token past the session end, however late it is renewed', () => {
    nowMs = Date.UTC(2026, 0, 1);
    const end = nowMs + 5_400_000;
    nowMs += 3_000_000;
    const { token, expiresMs } = tokens.issue(user, { sessionId: 's-2', notAfterMs: end });
    expect(expiresMs).toBe(end);
    nowMs = end + 1000;
    expect(tokens.verify(token)).toBeNull();
  });

  it.each([
    ['no session id', () => jwt.sign({ sub: 'u-1', tv: 3 }, SECRET, { issuer: 'sac', audience: 'sac-console', expiresIn: 60 })],
    ['alg none', () => jwt.sign({ sub: 'u-1', tv: 3, sid: 's' }, '', { algorithm: 'none', issuer: 'sac', audience: 'sac-console' })],
    ['HS512', () => jwt.sign({ sub: 'u-1', tv: 3 }, SECRET, { algorithm: 'HS512', issuer: 'sac', audience: 'sac-console', expiresIn: 60 })],
    ['other secret', () => jwt.sign({ sub: 'u-1', tv: 3 }, 'another-secret-another-secret-000', { issuer: 'sac', audience: 'sac-console', expiresIn: 60 })],
    ['wrong issuer', () => jwt.sign({ sub: 'u-1', tv: 3 }, SECRET, { issuer: 'evil', audience: 'sac-console', expiresIn: 60 })],
    ['wrong audience', () => jwt.sign({ sub: 'u-1', tv: 3 }, SECRET, { issuer: 'sac', audience: 'other', expiresIn: 60 })],
    ['no exp', () => jwt.sign({ sub: 'u-1', tv: 3 }, SECRET, { issuer: 'sac', audience: 'sac-console' })],
    ['no token version', () => jwt.sign({ sub: 'u-1' }, SECRET, { issuer: 'sac', audience: 'sac-console', expiresIn: 60 })],
    ['garbage', () => 'not.a.jwt'],
  ])('rejects %s', (_name, make) => {
    nowMs = Date.now();
    expect(tokens.verify(make())).toBeNull();
  });
});
