import { describe, expect, it } from 'vitest';
import type { TextStorage } from './profiles.js';
import { TokenVault, type Encryptor } from './token-vault.js';

function memory(): TextStorage & { text: string | null } {
  const s = { text: null as string | null, read: () => s.text, write: (t: string) => void (s.text = t) };
  return s;
}
// A reversible stand-in for the OS keychain: good enough to see that nothing is stored in clear.
const xor = (b: Buffer) => Buffer.from(b.map((x) => x ^ 0x5a));
const fakeKeychain = (available: boolean, backend?: string): Encryptor => ({
  isEncryptionAvailable: () => available,
  encryptString: (s) => xor(Buffer.from(s)),
  decryptString: (b) => xor(b).toString(),
  ...(backend ? { getSelectedStorageBackend: () => backend } : {}),
});

describe('TokenVault', () => {
  it('stores tokens encrypted per profile and reads them back after a restart', () => {
    const storage = memory();
    new TokenVault(storage, fakeKeychain(true)).set('p1', 'eyJ.token.one');
    expect(storage.text).not.toContain('eyJ.token.one');
    const again = new TokenVault(storage, fakeKeychain(true));
    expect(again.get('p1')).toBe('eyJ.token.one');
    expect(again.get('p2')).toBeNull();
    again.clear('p1');
    expect(new TokenVault(storage, fakeKeychain(true)).get('p1')).toBeNull();
  });

  it('keeps the token in memory only when the OS offers no encryption', () => {
    const storage = memory();
    const vault = new TokenVault(storage, fakeKeychain(false));
    vault.set('p1', 'secret-token');
    expect(vault.get('p1')).toBe('secret-token');
    expect(storage.text).toBe('{}');
    expect(new TokenVault(storage, fakeKeychain(false)).get('p1')).toBeNull();
  });

  it('does not save tokens with the basic_text backend (a fixed key) unless the user agrees, asking once', () => {
    const storage = memory();
    let asked = 0;
    const refuse = new TokenVault(storage, fakeKeychain(true, 'basic_text'), () => (asked++, false));
    refuse.set('p1', 'secret-token');
    refuse.set('p2', 'other-token');
    expect(refuse.get('p1')).toBe('secret-token');
    expect(storage.text).toBe('{}');
    expect(asked).toBe(1);

    const agree = new TokenVault(storage, fakeKeychain(true, 'basic_text'), () => true);
    agree.set('p1', 'secret-token');
    expect(storage.text).not.toContain('secret-token');
    expect(new TokenVault(storage, fakeKeychain(true, 'basic_text'), () => true).get('p1')).toBe('secret-token');
    // Without the user's consent a token saved earlier that way is not used either.
    expect(new TokenVault(storage, fakeKeychain(true, 'basic_text')).get('p1')).toBeNull();
  });

  it('saves tokens without asking with a real keyring backend', () => {
    const storage = memory();
    const vault = new TokenVault(storage, fakeKeychain(true, 'gnome_libsecret'), () => {
      throw new Error('must not ask');
    });
    vault.set('p1', 'secret-token');
    expect(new TokenVault(storage, fakeKeychain(true, 'gnome_libsecret')).get('p1')).toBe('secret-token');
  });
});
