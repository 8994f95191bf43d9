import { statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMasterKey, SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox('a-master-key-of-at-least-32-characters');

  it('round-trips, with a fresh IV each time', () => {
    const a = box.encrypt('hunter2-but-longer', 'settings.smtp:url');
    expect(a).not.toContain('hunter2');
    expect(box.encrypt('hunter2-but-longer', 'settings.smtp:url')).not.toBe(a);
    expect(box.decrypt(a, 'settings.smtp:url')).toBe('hunter2-but-longer');
  });

  it('refuses a ciphertext moved to another field, tampered with, or read with another key', () => {
    const sealed = box.encrypt('value', 'settings.telegram:bot_token');
    expect(() => box.decrypt(sealed, 'settings.webhook:secret')).toThrow(/cannot be decrypted/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('other').toString('base64url');
    expect(() => box.decrypt(parts.join('.'), 'settings.telegram:bot_token')).toThrow(/cannot be decrypted/);
    expect(() => new SecretBox('another-master-key-of-32-characters!').decrypt(sealed, 'settings.telegram:bot_token')).toThrow();
    expect(() => box.decrypt('garbage', 'x')).toThrow(/expected format/);
  });

  it('generates the key file once, owner-only, and prefers SAC_MASTER_KEY', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sac-mk-'));
    const first = loadMasterKey(undefined, dir);
    expect(first.key.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    expect(loadMasterKey(undefined, dir).key).toBe(first.key);
    expect(loadMasterKey('given-key-given-key-given-key-32+', dir)).toEqual({ key: 'given-key-given-key-given-key-32+', file: null });
  });
});
