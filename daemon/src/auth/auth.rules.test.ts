import { describe, expect, it } from 'vitest';
import { AddressFailures, commonPasswordSet, failuresInWindow, passwordProblem, retryAfterSeconds } from './auth.rules.js';

describe('passwordProblem', () => {
  it.each([
    ['short', 'alice', /at least 12/],
    ['x'.repeat(257), 'alice', /at most 256/],
    ['Password1234', 'alice', /commonly used/],
    ['QWERTYUIOPAS', 'alice', /commonly used/],
    ['abababababababab', 'alice', /distinct/],
    ['my-name-is-alice-ok', 'alice', /username/],
    ['Correct-Horse-Battery-9', 'alice', null],
    // From the shipped list (daemon/assets/common-passwords.txt), not the long hand-kept ones.
    ['Sunshine2000!', 'alice', /commonly used/],
    ['!!Blink182blink182', 'alice', null],
    ['MonkeyMonkeyMonkey', 'alice', /commonly used/],
    ['dragon123456', 'alice', /commonly used/],
    ['trustno1trustno1', 'alice', /commonly used/],
    ['x'.repeat(12) + 'y1', 'bob', null],
  ])('%s (user %s) → %s', (password, username, problem) => {
    const result = passwordProblem(password, username);
    if (problem === null) expect(result).toBeNull();
    else expect(result).toMatch(problem);
  });
});

describe('the common-password list', () => {
  it('ships at least 10,000 lower-cased entries, including the top of the breach lists', () => {
    const list = commonPasswordSet();
    expect(list.size).toBeGreaterThanOrEqual(10_000);
    for (const p of ['123456', 'password', 'qwerty', 'iloveyou', 'trustno1']) expect(list.has(p)).toBe(true);
    expect([...list].every((p) => p === p.toLowerCase())).toBe(true);
  });
});

describe('throttle arithmetic', () => {
  it('counts only failures strictly inside the window', () => {
    expect(failuresInWindow([1000, 5000, 9000], 10_000, 5000)).toBe(1);
    expect(failuresInWindow([1000, 5001, 9000], 10_000, 5000)).toBe(2);
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(10_001, 9_000)).toBe(2);
    expect(retryAfterSeconds(9_000, 9_000)).toBe(1);
    expect(retryAfterSeconds(909_000, 9_000)).toBe(900);
  });

  it('blocks an address after `max` failures until its window ends, then starts over', () => {
    const a = new AddressFailures(3, 1000);
    for (let t = 0; t < 3; t++) {
      expect(a.blockedFor('1.2.3.4', t)).toBe(0);
      a.record('1.2.3.4', t);
    }
    expect(a.blockedFor('1.2.3.4', 500)).toBe(500);
    expect(a.blockedFor('5.6.7.8', 500)).toBe(0);
    expect(a.blockedFor('1.2.3.4', 1000)).toBe(0);
    a.record('1.2.3.4', 1000);
    expect(a.blockedFor('1.2.3.4', 1001)).toBe(0);
  });

  it('counts reserved attempts before they fail, so parallel ones cannot all pass', () => {
    const a = new AddressFailures(3, 1000);
    expect([0, 1, 2, 3, 4].map(() => a.reserve('1.2.3.4', 0))).toEqual([0, 0, 0, 1000, 1000]);
    a.settle('1.2.3.4', 10, false);
    expect(a.reserve('1.2.3.4', 10)).toBe(0);
    for (let i = 0; i < 3; i++) a.settle('1.2.3.4', 20, true);
    expect(a.reserve('1.2.3.4', 30)).toBe(990);
    expect(a.reserve('1.2.3.4', 1020)).toBe(0);
  });
});
