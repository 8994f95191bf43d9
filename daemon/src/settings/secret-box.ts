import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';
import { restrictFiles, writeSecretFile } from '../secret-files.js';

const PREFIX = 'v1';

/**
 * AES-256-GCM for secrets at rest. The key is SHA-256 of the master key text; each value gets a
 * fresh 96-bit IV, and its storage key is bound as additional data so ciphertexts cannot be moved
 * between fields.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKey: string) {
    this.key = createHash('sha256').update(masterKey, 'utf8').digest();
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  encrypt(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [PREFIX, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string, context: string): string {
    const [prefix, iv, tag, ct] = sealed.split('.');
    if (prefix !== PREFIX || iv === undefined || tag === undefined || ct === undefined) {
      throw new AppError('settings/undecryptable', 'A stored secret is not in the expected format', { kind: 'unexpected' });
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch (cause) {
      throw new AppError(
        'settings/undecryptable',
        'A stored secret cannot be decrypted: SAC_MASTER_KEY (or the master-key file) differs from the one it was written with',
        { kind: 'unexpected', cause },
      );
    }
  }
}

export const MASTER_KEY_FILE = 'master-key';

/**
 * The master key: `SAC_MASTER_KEY` when given, otherwise the key file in the data dir, created
 * (owner-only, 256 random bits) on first start. Exclusive creation keeps a concurrent start from
 * replacing a key already in use.
 */
export function loadMasterKey(given: string | undefined, dataDir: string): { key: string; file: string | null } {
  if (given) return { key: given, file: null };
  const file = path.join(dataDir, MASTER_KEY_FILE);
  // Exclusive: two daemons starting on one data dir keep the first key written.
  writeSecretFile(file, `${randomBytes(32).toString('base64url')}\n`, { exclusive: true });
  restrictFiles([file]);
  const key = readFileSync(file, 'utf8').trim();
  if (key.length < 32) throw new AppError('settings/master_key_invalid', `${file} holds fewer than 32 characters`, { kind: 'unexpected' });
  return { key, file };
}
