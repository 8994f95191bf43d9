import { randomUUID } from 'node:crypto';
import type { ConnectionProfile, ProfileInput } from '../preload/bridge.js';
import { validateDaemonUrl } from './daemon-url.js';

/** Where profiles are persisted (a JSON file in the user data folder; a memory fake in tests). */
export interface TextStorage {
  read(): string | null;
  write(text: string): void;
}

interface ProfileFile {
  version: 1;
  active: string | null;
  profiles: ConnectionProfile[];
}

const MAX_PROFILES = 50;
const MAX_NAME = 80;

function isProfile(v: unknown): v is ConnectionProfile {
  const p = v as ConnectionProfile;
  return typeof p?.id === 'string' && typeof p.name === 'string' && typeof p.url === 'string' && validateDaemonUrl(p.url).ok;
}

/** Reads the file leniently: a damaged or foreign file yields no profiles rather than a crash. */
export function parseProfileFile(text: string | null): ProfileFile {
  const empty: ProfileFile = { version: 1, active: null, profiles: [] };
  if (!text) return empty;
  try {
    const raw = JSON.parse(text) as Partial<ProfileFile>;
    const profiles = Array.isArray(raw.profiles) ? raw.profiles.filter(isProfile).slice(0, MAX_PROFILES) : [];
    const active = typeof raw.active === 'string' && profiles.some((p) => p.id === raw.active) ? raw.active : null;
    return { version: 1, active, profiles };
  } catch {
    return empty;
  }
}

/** The desktop app's saved daemon connections and which one is active. */
export class ProfileStore {
  constructor(
    private readonly storage: TextStorage,
    private readonly newId: () => string = randomUUID,
  ) {}

  private load(): ProfileFile {
    return parseProfileFile(this.storage.read());
  }

  private persist(file: ProfileFile): void {
    this.storage.write(`${JSON.stringify(file, null, 2)}\n`);
  }

  list(): ConnectionProfile[] {
    return this.load().profiles;
  }

  active(): ConnectionProfile | null {
    const file = this.load();
    return file.profiles.find((p) => p.id === file.active) ?? null;
  }

  /** Adds or updates a profile; throws an Error with a readable message for bad input. */
  save(input: ProfileInput): ConnectionProfile {
    const check = validateDaemonUrl(String(input.url ?? ''));
    if (!check.ok) throw new Error(check.reason);
    const name = String(input.name ?? '').trim().slice(0, MAX_NAME) || new URL(check.url).host;
    const file = this.load();
    const existing = input.id ? file.profiles.find((p) => p.id === input.id) : file.profiles.find((p) => p.url === check.url);
    if (input.id && !existing) throw new Error('No such connection');
    if (!existing && file.profiles.length >= MAX_PROFILES) throw new Error(`At most ${MAX_PROFILES} connections can be saved`);
    const profile: ConnectionProfile = { id: existing?.id ?? this.newId(), name, url: check.url };
    const profiles = existing ? file.profiles.map((p) => (p.id === profile.id ? profile : p)) : [...file.profiles, profile];
    this.persist({ ...file, profiles });
    return profile;
  }

  remove(id: string): void {
    const file = this.load();
    this.persist({ version: 1, active: file.active === id ? null : file.active, profiles: file.profiles.filter((p) => p.id !== id) });
  }

  activate(id: string): ConnectionProfile {
    const file = this.load();
    const profile = file.profiles.find((p) => p.id === id);
    if (!profile) throw new Error('No such connection');
    this.persist({ ...file, active: id });
    return profile;
  }
}
