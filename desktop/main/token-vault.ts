import type { TextStorage } from './profiles.js';

/** The part of Electron's safeStorage the vault uses (a fake in tests). */
export interface Encryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: the secret store in use; `basic_text` means a key hard-coded in Chromium, i.e. none. */
  getSelectedStorageBackend?(): string;
}

/**
 * Console session tokens per connection profile, encrypted with the OS keychain (safeStorage).
 * Without OS encryption the token is kept in memory only: never written to disk in clear. On Linux
 * without a keyring safeStorage reports `basic_text` (a fixed key, as good as clear text): then
 * the user is asked once (`allowWeakStorage`) whether to keep tokens on disk that way anyway.
 */
export class TokenVault {
  private readonly memory = new Map<string, string>();
  private weakAllowed: boolean | null = null;

  constructor(
    private readonly storage: TextStorage,
    private readonly encryptor: Encryptor,
    private readonly allowWeakStorage: () => boolean = () => false,
  ) {}

  /** Whether tokens may be written to disk: real OS encryption, or the user accepted the weak one. */
  private persistent(): boolean {
    if (!this.encryptor.isEncryptionAvailable()) return false;
    if (this.encryptor.getSelectedStorageBackend?.() !== 'basic_text') return true;
    this.weakAllowed ??= this.allowWeakStorage();
    return this.weakAllowed;
  }

  private load(): Record<string, string> {
    try {
      const parsed = JSON.parse(this.storage.read() ?? '{}') as unknown;
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  get(profileId: string): string | null {
    const cached = this.memory.get(profileId);
    if (cached !== undefined) return cached;
    const stored = this.load()[profileId];
    if (!stored || !this.persistent()) return null;
    try {
      const token = this.encryptor.decryptString(Buffer.from(stored, 'base64'));
      this.memory.set(profileId, token);
      return token;
    } catch {
      return null;
    }
  }

  set(profileId: string, token: string): void {
    this.memory.set(profileId, token);
    const all = this.load();
    if (this.persistent()) all[profileId] = this.encryptor.encryptString(token).toString('base64');
    else delete all[profileId];
    this.storage.write(JSON.stringify(all));
  }

  clear(profileId: string): void {
    this.memory.delete(profileId);
    const all = this.load();
    delete all[profileId];
    this.storage.write(JSON.stringify(all));
  }
}
