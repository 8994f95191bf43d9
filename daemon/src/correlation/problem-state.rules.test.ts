import { describe, expect, it } from 'vitest';
import { invalidTransition, nextStatus, type ProblemAction, type ProblemStatus } from './problem-state.rules.js';
import { mapError } from '../http/index.js';

describe('problem state transitions', () => {
  it.each<[ProblemStatus, ProblemAction, ProblemStatus | null]>([
    ['open', 'acknowledge', 'acknowledged'],
    ['acknowledged', 'acknowledge', null],
    ['resolved', 'acknowledge', null],
    ['open', 'resolve', 'resolved'],
    ['acknowledged', 'resolve', 'resolved'],
    ['resolved', 'resolve', null],
  ])('%s + %s → %s', (status, action, expected) => {
    expect(nextStatus(status, action)).toBe(expected);
  });
  it('refuses with a 409 problem/invalid_transition', () => {
    const err = invalidTransition('resolved', 'acknowledge');
    expect(err).toMatchObject({ code: 'problem/invalid_transition', kind: 'user', details: { status: 'resolved', action: 'acknowledge' } });
    expect(mapError(err).status).toBe(409);
  });
});
