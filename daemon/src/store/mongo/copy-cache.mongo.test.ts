import { describe, expect, it } from 'vitest';
import { CopyCache } from './copy-cache.mongo.js';

describe('CopyCache', () => {
  it('serves a copy until its age passes the limit; a replaced copy keeps its age', () => {
    const cache = new CopyCache<string>({ ttlMs: 1000, max: 10 });
    cache.set('h1', 'v1', 0);
    expect(cache.fresh('h1', 1000)).toBe('v1');
    cache.replace('h1', 'v2');
    expect(cache.fresh('h1', 1000)).toBe('v2');
    expect(cache.fresh('h1', 1001)).toBeUndefined();
    // Replacing what is not there adds nothing.
    cache.replace('h2', 'x');
    expect(cache.fresh('h2', 0)).toBeUndefined();
  });

  it('drops the least recently set copy past its size, and the copies a deletion names', () => {
    const cache = new CopyCache<{ id: string }>({ ttlMs: 1000, max: 2 });
    cache.set('a', { id: '1' }, 0);
    cache.set('b', { id: '2' }, 0);
    cache.set('a', { id: '1' }, 1);
    cache.set('c', { id: '3' }, 2);
    expect(cache.fresh('b', 2)).toBeUndefined();
    expect(cache.fresh('a', 2)).toEqual({ id: '1' });
    cache.forgetWhere((v) => v.id === '3');
    expect(cache.fresh('c', 2)).toBeUndefined();
    cache.forget('a');
    expect(cache.fresh('a', 2)).toBeUndefined();
  });
});
