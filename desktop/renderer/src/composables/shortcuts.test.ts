// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { feedKey, isTyping, SHORTCUTS } from './shortcuts';

describe('keyboard shortcuts', () => {
  it('completes two-key sequences and single keys', () => {
    let r = feedKey([], 'g');
    expect(r).toEqual({ action: null, pending: ['g'] });
    r = feedKey(r.pending, 'e');
    expect(r).toEqual({ action: 'goEvents', pending: [] });
    expect(feedKey([], '/').action).toBe('focusSearch');
    expect(feedKey([], '?').action).toBe('help');
    expect(feedKey(['g'], 'p').action).toBe('goProblems');
    expect(feedKey(['g'], 'd').action).toBe('goDashboard');
  });

  it('drops an unknown sequence but still honours a single-key shortcut typed after a prefix', () => {
    expect(feedKey(['g'], 'x')).toEqual({ action: null, pending: [] });
    expect(feedKey(['g'], '/')).toEqual({ action: 'focusSearch', pending: [] });
    expect(feedKey(['g'], 'g')).toEqual({ action: null, pending: ['g'] });
  });

  it('has no shortcut that is a prefix of another (each sequence is reachable)', () => {
    for (const a of SHORTCUTS) for (const b of SHORTCUTS) if (a !== b && a.keys.length < b.keys.length) expect(b.keys.slice(0, a.keys.length)).not.toEqual(a.keys);
  });

  it('knows when the user is typing', () => {
    const input = document.createElement('input');
    const div = document.createElement('div');
    expect(isTyping(input)).toBe(true);
    expect(isTyping(document.createElement('textarea'))).toBe(true);
    expect(isTyping(div)).toBe(false);
    expect(isTyping(null)).toBe(false);
  });
});
