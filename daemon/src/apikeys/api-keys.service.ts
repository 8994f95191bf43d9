import { hash, randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../clock.js';
import { storeUnavailable } from '../errors.js';
import { randomBase62 } from '../random.js';
import type { ApiKeyRecord, ApiKeysRepo } from '../store/index.js';

/** Characters of a key shown for identification (`sac_` + 8). */
export const API_KEY_PREFIX_LENGTH = 12;
const CACHE_TTL_MS = 30_000;
const TOUCH_INTERVAL_MS = 60_000;
/**
 * Uses are written together, this long after the first one waiting: with a key per host, writing
 * each key's use as it came was a write per agent request now and then — on SQLite a write on the
 * main thread that waits, event loop blocked, for the ingest thread's commit.
 */
const TOUCH_FLUSH_MS = 5_000;

/** A fresh agent API key: `sac_` + 40 random base62 characters (about 238 bits). */
export function generateApiKey(): string {
  return `sac_${randomBase62(40)}`;
}

/**
 * Keys are random and long, so one SHA-256 is a sufficient, fast verifier. Computed on every agent
 * request: the one-shot `hash` is about twice as fast as a `createHash` object.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function apiKeyPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX_LENGTH);
}

/** What a key may send for; both unset: any host. */
export interface KeyBinding {
  hostname?: string;
  agent_instance_id?: string;
  on_mismatch?: 'refuse' | 'flag';
}

/** An API key as listed: never the secret or its hash. */
export type ApiKeyInfo = Omit<ApiKeyRecord, 'hash'>;

function info({ hash: _hash, ...rest }: ApiKeyRecord): ApiKeyInfo {
  return rest;
}

/**
 * Agent API keys: creation (the secret is returned once), verification on every agent request
 * (cached briefly; a revocation through this service takes effect at once), and revocation.
 */
export class ApiKeyService {
  private readonly cache = new Map<string, { record: ApiKeyRecord | null; until: number }>();
  private readonly revokeListeners = new Set<() => void>();
  /** Uses not yet written: key id → time. */
  private readonly touches = new Map<string, number>();
  private touchTimer: Timer | null = null;

  constructor(
    private readonly repo: ApiKeysRepo,
    private readonly clock: Clock,
  ) {}

  async create(label: string, secret: string = generateApiKey(), binding: KeyBinding = {}): Promise<{ key: string; info: ApiKeyInfo }> {
    const record: ApiKeyRecord = {
      id: randomUUID(),
      prefix: apiKeyPrefix(secret),
      hash: hashApiKey(secret),
      label,
      bound_hostname: binding.hostname?.trim().toLowerCase() || null,
      bound_instance_id: binding.agent_instance_id?.trim() || null,
      on_mismatch: binding.on_mismatch ?? 'refuse',
      created_ms: this.clock.now(),
      last_used_ms: null,
      revoked_ms: null,
    };
    await this.repo.insert(record);
    this.cache.delete(record.hash);
    return { key: secret, info: info(record) };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.repo.list()).map(info);
  }

  async revoke(id: string): Promise<boolean> {
    const done = await this.repo.revoke(id, this.clock.now());
    this.cache.clear();
    if (done) for (const listener of this.revokeListeners) listener();
    return done;
  }

  /** Called after a key was revoked through this daemon (the other daemons are told through the cluster feed). */
  onRevoke(listener: () => void): void {
    this.revokeListeners.add(listener);
  }

  /** Forgets cached keys: a key was revoked through another daemon on the same store. */
  invalidate(): void {
    this.cache.clear();
  }

  /** The active key record for a presented secret, or null. */
  async verify(secret: string): Promise<ApiKeyRecord | null> {
    const keyHash = hashApiKey(secret);
    const now = this.clock.now();
    let entry = this.cache.get(keyHash);
    if (!entry || entry.until < now) {
      if (this.cache.size > 10_000) this.cache.clear(); // bounded: random wrong keys cannot grow it
      let record: ApiKeyRecord | null;
      try {
        record = await this.repo.byHash(keyHash);
      } catch (err) {
        throw storeUnavailable(err);
      }
      entry = { record, until: now + CACHE_TTL_MS };
      this.cache.set(keyHash, entry);
    }
    const record = entry.record;
    if (!record || record.revoked_ms !== null) return null;
    if (record.last_used_ms === null || now - record.last_used_ms > TOUCH_INTERVAL_MS) {
      record.last_used_ms = now;
      this.touches.set(record.id, now);
      this.touchTimer ??= this.clock.setTimeout(() => void this.flushTouches(), TOUCH_FLUSH_MS);
    }
    return record;
  }

  /** Writes the uses recorded since the last write, in one store call (best effort: usage stats only). */
  async flushTouches(): Promise<void> {
    this.touchTimer?.cancel();
    this.touchTimer = null;
    const touches = [...this.touches].map(([id, at_ms]) => ({ id, at_ms }));
    this.touches.clear();
    await this.repo.touchMany(touches).catch(() => undefined);
  }

  /**
   * First start: with no key at all, register `given` (SAC_BOOTSTRAP_API_KEY) or generate one.
   * A given key is also registered when keys exist but it is not among them.
   * Returns the new secret when one was generated, so the caller can show it once.
   */
  async ensureBootstrapKey(given: string | undefined): Promise<{ generated: string | null }> {
    if (given) {
      if (!(await this.repo.byHash(hashApiKey(given)))) await this.create('bootstrap', given);
      return { generated: null };
    }
    if ((await this.repo.list()).length > 0) return { generated: null };
    const { key } = await this.create('bootstrap');
    return { generated: key };
  }
}
