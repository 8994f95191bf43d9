import { createHash, randomBytes } from 'node:crypto';
import { ENROLLMENT_CODE_ALPHABET, ENROLLMENT_CODE_LENGTH } from '../../../shared/src/index.js';
import type { DeviceRecord, DeviceStatus, EnrollmentCodeRecord } from '../store/index.js';

/** A fresh enrollment code: uniformly random characters of the unambiguous alphabet. */
export function generateEnrollmentCode(random: (n: number) => Buffer = randomBytes): string {
  const n = ENROLLMENT_CODE_ALPHABET.length;
  // Rejecting bytes at or above the largest multiple of the alphabet size keeps every character equally likely.
  const limit = 256 - (256 % n);
  let out = '';
  while (out.length < ENROLLMENT_CODE_LENGTH) {
    for (const b of random(ENROLLMENT_CODE_LENGTH * 2)) {
      if (b < limit && out.length < ENROLLMENT_CODE_LENGTH) out += ENROLLMENT_CODE_ALPHABET[b % n];
    }
  }
  return out;
}

/** The canonical form of a typed code (upper-case, separators removed), or null when it cannot be one of ours. */
export function normaliseEnrollmentCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]+/g, '');
  if (code.length !== ENROLLMENT_CODE_LENGTH) return null;
  for (const c of code) if (!ENROLLMENT_CODE_ALPHABET.includes(c)) return null;
  return code;
}

/** `ABCDE-FGHJK`: how a code is shown. */
export function formatEnrollmentCode(code: string): string {
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** SHA-256, hex: codes and refresh tokens are stored only as this (both carry enough entropy for a fast hash). */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function codeStatus(c: EnrollmentCodeRecord, nowMs: number): 'pending' | 'used' | 'expired' | 'revoked' {
  if (c.revoked_ms !== null) return 'revoked';
  if (c.used_ms !== null) return 'used';
  return c.expires_ms <= nowMs ? 'expired' : 'pending';
}

/** A device as far as the state machine cares: no record, or its status. */
export type DeviceState = 'none' | DeviceStatus;

/**
 * What happens to a device:
 * `enroll` with a valid code, `refresh` with an unused refresh token of its current enrollment,
 * `refresh_reused` with a refresh token that was already used, `revoke` and `delete` by an admin.
 */
export type DeviceAction = 'enroll' | 'refresh' | 'refresh_reused' | 'revoke' | 'delete';

export interface Transition {
  next: DeviceState;
  /** `ok`: the action succeeds; `unauthorized`: 401 (tokens); `not_found`: 404 (admin actions). */
  outcome: 'ok' | 'unauthorized' | 'not_found';
}

/**
 * The device state machine. Enrollment (also of a revoked device: an admin issued a new code for
 * it) gives `enrolled` with new tokens; reuse of a refresh token revokes the device; deleted
 * devices are gone (`none`). A revoked device's tokens answer 401.
 */
export function transition(state: DeviceState, action: DeviceAction): Transition {
  switch (action) {
    case 'enroll':
      return { next: 'enrolled', outcome: 'ok' };
    case 'refresh':
      return state === 'enrolled' ? { next: 'enrolled', outcome: 'ok' } : { next: state, outcome: 'unauthorized' };
    case 'refresh_reused':
      return { next: state === 'none' ? 'none' : 'revoked', outcome: 'unauthorized' };
    case 'revoke':
      return state === 'none' ? { next: 'none', outcome: 'not_found' } : { next: 'revoked', outcome: 'ok' };
    case 'delete':
      return state === 'none' ? { next: 'none', outcome: 'not_found' } : { next: 'none', outcome: 'ok' };
  }
}

/** Whether an access token bound to a device is still good: the device is enrolled, for that user, in that generation. */
export function deviceAccepts(device: Pick<DeviceRecord, 'status' | 'user_id' | 'generation'> | null, userId: string, generation: number): boolean {
  return device !== null && transition(device.status, 'refresh').outcome === 'ok' && device.user_id === userId && device.generation === generation;
}
