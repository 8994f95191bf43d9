import { describe, expect, it } from 'vitest';
import { isKeepMarker, mapSecrets, maskSecrets, resolveKeepMarkers, valueAt } from './settings.rules.js';

describe('settings secret paths', () => {
  const value = { bot_token: 's3cret', chat_ids: ['1'], repos: [{ product: 'a', token: 't1' }, { product: 'b', token: null }] };
  const paths = ['bot_token', 'repos.*.token'];

  it('visits top-level and array-item secrets with their concrete paths', () => {
    const seen: string[] = [];
    mapSecrets(value, paths, (v, p) => seen.push(`${p}=${String(v)}`));
    expect(seen).toEqual(['bot_token=s3cret', 'repos.0.token=t1', 'repos.1.token=null']);
  });

  it('masks secrets as { set } and leaves other fields and the input alone', () => {
    expect(maskSecrets(value, paths)).toEqual({
      bot_token: { set: true },
      chat_ids: ['1'],
      repos: [{ product: 'a', token: { set: true } }, { product: 'b', token: { set: false } }],
    });
    expect(value.bot_token).toBe('s3cret');
  });

  it('keeps stored secrets where an update sends { set: true }, and takes new values or null otherwise', () => {
    const update = { bot_token: { set: true }, repos: [{ product: 'a', token: { set: true } }, { product: 'b', token: 'new' }] };
    expect(resolveKeepMarkers(update, value, paths)).toEqual({
      bot_token: 's3cret',
      repos: [{ product: 'a', token: 't1' }, { product: 'b', token: 'new' }],
    });
    expect(resolveKeepMarkers({ bot_token: null }, value, paths)).toEqual({ bot_token: null });
  });

  it.each([
    [{ set: true }, true],
    [{ set: false }, false],
    [{ set: true, x: 1 }, false],
    ['set', false],
    [null, false],
  ])('isKeepMarker(%j) is %s', (v, expected) => {
    expect(isKeepMarker(v)).toBe(expected);
  });

  it('reads values at dotted paths', () => {
    expect(valueAt(value, 'repos.0.token')).toBe('t1');
    expect(valueAt(value, 'repos.5.token')).toBeUndefined();
  });
});
