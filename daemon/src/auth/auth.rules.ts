import { PASSWORD_LIMITS } from '../../../shared/src/index.js';

/**
 * Common passwords of at least 12 characters (the shorter ones are already refused by length),
 * from public breach top lists. Compared case-insensitively.
 */
const COMMON_PASSWORDS = new Set([
  '123456789012', '1234567890123', '12345678901234', '123456789123', '1234567891011', '111111111111',
  '000000000000', '123123123123', '121212121212', '012345678910', '098765432109', '987654321098',
  'qwertyuiopas', 'qwertyuiop123', 'qwerty123456', '1q2w3e4r5t6y', '1qaz2wsx3edc', 'qazwsxedcrfv',
  'zaq12wsxcde3', 'asdfghjkl123', 'zxcvbnm12345', 'qwertyuiopasdfghjkl', 'passwordpassword', 'password1234',
  'password12345', 'password123456', 'password1234567', 'passw0rd1234', 'p@ssw0rd1234', 'p@ssword1234',
  'password!123', 'password123!', 'mypassword123', 'letmein12345', 'iloveyou1234', 'iloveyou12345',
  'administrator', 'administrator1', 'administrator123', 'admin1234567', 'admin123456789', 'adminadmin123',
  'adminadminadmin', 'changeme1234', 'changeme12345', 'welcome12345', 'welcome123456', 'welcome@1234',
  'sunshine1234', 'princess1234', 'football1234', 'baseball1234', 'superman1234', 'starwars1234',
  'trustno11234', 'dragon123456', 'monkey123456', 'master123456', 'shadow123456', 'michael12345',
  'abc123456789', 'abcdefghijkl', 'abcdefgh1234', 'abcd12345678', 'aaaaaaaaaaaa', 'secret123456',
  'security1234', 'securepassword', 'defaultpassword', 'default12345', 'temp12345678', 'test12345678',
  'testtesttest', 'qwertyqwerty', 'asdfasdfasdf', 'zxcvbnmasdfg', 'computer1234', 'internet1234',
  'whatever1234', 'nopassword12', 'mustchangeme', 'correcthorsebatterystaple', 'summer2024!!', 'winter2024!!',
]);

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, username: string): string | null {
  if (password.length < PASSWORD_LIMITS.min) return `must be at least ${PASSWORD_LIMITS.min} characters`;
  if (password.length > PASSWORD_LIMITS.max) return `must be at most ${PASSWORD_LIMITS.max} characters`;
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'is a commonly used password';
  if (new Set(lower).size <= 2) return 'repeats too few distinct characters';
  if (lower.includes(username.toLowerCase()) && username.length >= 4) return 'must not contain the username';
  return null;
}

export interface ThrottlePolicy {
  /** Failures within `windowMs` that lock the username. */
  maxFailures: number;
  windowMs: number;
  lockMs: number;
}

/** Failures still inside the window at `nowMs`. */
export function failuresInWindow(failuresMs: readonly number[], nowMs: number, windowMs: number): number {
  return failuresMs.filter((t) => t > nowMs - windowMs).length;
}

/** Whole seconds until `untilMs`, at least 1 (the value of `Retry-After`). */
export function retryAfterSeconds(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

/**
 * Counts failures per source address in a fixed window (in memory, per daemon): bounds password
 * guessing spread over many usernames from one place.
 */
export class AddressFailures {
  private readonly windows = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Ms until the address may try again, or 0. */
  blockedFor(ip: string, nowMs: number): number {
    const w = this.windows.get(ip);
    if (!w || nowMs - w.startMs >= this.windowMs) return 0;
    return w.count >= this.max ? w.startMs + this.windowMs - nowMs : 0;
  }

  record(ip: string, nowMs: number): void {
    const w = this.windows.get(ip);
    if (!w || nowMs - w.startMs >= this.windowMs) {
      if (this.windows.size >= 100_000) this.prune(nowMs);
      this.windows.set(ip, { startMs: nowMs, count: 1 });
    } else {
      w.count++;
    }
  }

  private prune(nowMs: number): void {
    for (const [ip, w] of this.windows) if (nowMs - w.startMs >= this.windowMs) this.windows.delete(ip);
  }
}
