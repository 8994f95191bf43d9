import { describe, expect, it } from 'vitest';
import { ENROLLMENT_CODE_ALPHABET } from '../../../shared/src/index.js';
import {
  codeStatus,
  deviceAccepts,
  formatEnrollmentCode,
  generateEnrollmentCode,
  normaliseEnrollmentCode,
  transition,
  type DeviceAction,
  type DeviceState,
  type Transition,
} from './mobile.rules.js';

describe('device state machine', () => {
  it.each<[DeviceState, DeviceAction, Transition]>([
    ['none', 'enroll', { next: 'enrolled', outcome: 'ok' }],
    ['enrolled', 'enroll', { next: 'enrolled', outcome: 'ok' }],
    ['revoked', 'enroll', { next: 'enrolled', outcome: 'ok' }],
    ['enrolled', 'refresh', { next: 'enrolled', outcome: 'ok' }],
    ['revoked', 'refresh', { next: 'revoked', outcome: 'unauthorized' }],
    ['none', 'refresh', { next: 'none', outcome: 'unauthorized' }],
    ['enrolled', 'refresh_reused', { next: 'revoked', outcome: 'unauthorized' }],
    ['revoked', 'refresh_reused', { next: 'revoked', outcome: 'unauthorized' }],
    ['none', 'refresh_reused', { next: 'none', outcome: 'unauthorized' }],
    ['enrolled', 'revoke', { next: 'revoked', outcome: 'ok' }],
    ['revoked', 'revoke', { next: 'revoked', outcome: 'ok' }],
    ['none', 'revoke', { next: 'none', outcome: 'not_found' }],
    ['enrolled', 'delete', { next: 'none', outcome: 'ok' }],
    ['revoked', 'delete', { next: 'none', outcome: 'ok' }],
    ['none', 'delete', { next: 'none', outcome: 'not_found' }],
  ])('%s + %s → %j', (state, action, expected) => {
    expect(transition(state, action)).toEqual(expected);
  });

  it.each([
    [{ status: 'enrolled' as const, user_id: 'u', generation: 2 }, 'u', 2, true],
    [{ status: 'enrolled' as const, user_id: 'u', generation: 3 }, 'u', 2, false],
    [{ status: 'enrolled' as const, user_id: 'v', generation: 2 }, 'u', 2, false],
    [{ status: 'revoked' as const, user_id: 'u', generation: 2 }, 'u', 2, false],
    [null, 'u', 2, false],
  ])('access token of %j for user %s generation %d → %s', (device, user, generation, ok) => {
    expect(deviceAccepts(device, user, generation)).toBe(ok);
  });
});

describe('enrollment codes', () => {
  it('are 10 characters of the unambiguous alphabet, uniformly drawn', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const code = generateEnrollmentCode();
      expect(code).toMatch(/^[2-9A-HJKMNP-Z]{10}$/);
      for (const c of code) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect(counts.size).toBe(ENROLLMENT_CODE_ALPHABET.length);
    // 20,000 draws over 31 characters: about 645 each; a biased draw would leave some far off.
    for (const n of counts.values()) expect(n).toBeGreaterThan(450);
  });

  it.each([
    ['ABCDE-FGHJK', 'ABCDEFGHJK'],
    ['abcde fghjk', 'ABCDEFGHJK'],
    [' 23456 789AB ', '23456789AB'],
    ['ABCDE-FGHJ', null],
    ['ABCDE-FGHJKL', null],
    ['ABCDE-FGHJ0', null],
    ['ABCDE-FGHJI', null],
    ['ABCDE-FGHJ!', null],
  ])('normalises %j → %j', (input, expected) => {
    expect(normaliseEnrollmentCode(input)).toBe(expected);
  });

  it('are shown in two groups of five', () => {
    expect(formatEnrollmentCode('ABCDEFGHJK')).toBe('ABCDE-FGHJK');
  });

  const code = { id: 'c', code_hash: 'h', user_id: 'u', created_by: null, created_ms: 0, expires_ms: 1000, used_ms: null, used_by: null, revoked_ms: null };
  it.each([
    [code, 999, 'pending'],
    [code, 1000, 'expired'],
    [{ ...code, used_ms: 10 }, 2000, 'used'],
    [{ ...code, revoked_ms: 10 }, 500, 'revoked'],
  ])('status of %j at %d → %s', (c, now, status) => {
    expect(codeStatus(c, now)).toBe(status);
  });
});
