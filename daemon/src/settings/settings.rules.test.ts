import { describe, expect, it } from 'vitest';
import { SETTINGS_SCHEMAS, SETTINGS_SECRET_DESTINATIONS, SETTINGS_SECRET_PATHS } from '../../../shared/src/index.js';
import { isKeepMarker, mapSecrets, maskSecrets, resolveKeepMarkers, secretsToResend, secretsUnguardedByReset, valueAt } from './settings.rules.js';

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

describe('secret destinations', () => {
  // Every field of the administrator credentials is a secret, a destination, or listed here as
  // moving no secret: a field added later (the WinRM CA bundle) fails this until it is classified.
  const MOVES_NO_SECRET = { windows_admin: ['codepage'], ssh_admin: [] as string[] } as const;

  it.each(Object.keys(MOVES_NO_SECRET) as (keyof typeof MOVES_NO_SECRET)[])('classifies every %s field', (category) => {
    const rule = SETTINGS_SECRET_DESTINATIONS[category]!;
    const classified = [...SETTINGS_SECRET_PATHS[category], ...rule.fields, ...MOVES_NO_SECRET[category]].sort();
    expect(classified).toEqual(Object.keys(SETTINGS_SCHEMAS[category].shape).sort());
    expect(rule.secrets).toEqual(SETTINGS_SECRET_PATHS[category]);
  });

  const ssh = { username: 'sac', port: 22, known_hosts: 'a', private_key: 'KEY', passphrase: null, password: 'pw' };

  it('asks for every stored guarded secret the update keeps when a destination really changes', () => {
    expect(secretsToResend('ssh_admin', { port: 2222 }, ssh, { ...ssh, port: 2222 })).toEqual(['private_key', 'password']);
    expect(secretsToResend('ssh_admin', { port: 2222, private_key: 'NEW', password: { set: true } }, ssh, { ...ssh, port: 2222 })).toEqual(['password']);
    expect(secretsToResend('ssh_admin', { port: 2222, private_key: 'NEW', password: null }, ssh, { ...ssh, port: 2222 })).toEqual([]);
    expect(secretsToResend('ssh_admin', { port: 22, private_key: { set: true } }, ssh, ssh)).toEqual([]);
    expect(secretsToResend('ssh_admin', { private_key: null }, ssh, { ...ssh, private_key: null })).toEqual([]);
  });

  it('refuses a reset of a guarded secret only while a destination field stays stored and the environment supplies one', () => {
    expect(secretsUnguardedByReset('windows_admin', ['password'], { port: 5985 }, { password: 'env' })).toEqual(['password']);
    expect(secretsUnguardedByReset('windows_admin', ['password'], { port: 5985 }, { password: null })).toEqual([]);
    expect(secretsUnguardedByReset('windows_admin', ['password', 'port'], { codepage: 'cp866' }, { password: 'env' })).toEqual([]);
    expect(secretsUnguardedByReset('windows_admin', ['port'], { password: 'x' }, { password: 'x' })).toEqual([]);
  });
});
