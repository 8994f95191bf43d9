import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PASSWORD_LIMITS } from '../../../shared/src/index.js';

/**
 * Long common passwords (12+ characters) that the shipped list, drawn from breach corpora whose
 * top entries are mostly short, lacks. Compared case-insensitively.
 */
const LONG_COMMON_PASSWORDS = [
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
];

/** daemon/assets/common-passwords.txt, found from this module in the source tree and in dist/ alike. */
function commonPasswordsFile(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, 'daemon', 'assets', 'common-passwords.txt');
}

let commonPasswords: Set<string> | null = null;

/**
 * The deny-list: the 30,000 most common passwords of a public list (see the file's header) plus the
 * long ones above, lower-cased. Read once, on first use; a missing file is a broken install and throws.
 */
export function commonPasswordSet(): ReadonlySet<string> {
  if (!commonPasswords) {
    const lines = readFileSync(commonPasswordsFile(), 'utf8').split('\n');
    commonPasswords = new Set(lines.filter((l) => l !== '' && !l.startsWith('#')));
    for (const p of LONG_COMMON_PASSWORDS) commonPasswords.add(p);
  }
  return commonPasswords;
}

/**
 * A common password, or one padded with digits and symbols around a common word ("Dragon123456!"),
 * or one repeating a common word ("monkeymonkeymonkey"): the forms length alone does not stop.
 */
function isCommon(lower: string): boolean {
  const list = commonPasswordSet();
  if (list.has(lower)) return true;
  const core = lower.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  if (core.length >= 4 && list.has(core)) return true;
  for (let unit = 3; unit <= lower.length / 2; unit++) {
    if (lower.length % unit === 0 && lower.slice(0, unit).repeat(lower.length / unit) === lower && list.has(lower.slice(0, unit))) return true;
  }
  return false;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string, username: string): string | null {
  if (password.length < PASSWORD_LIMITS.min) return `must be at least ${PASSWORD_LIMITS.min} characters`;
  if (password.length > PASSWORD_LIMITS.max) return `must be at most ${PASSWORD_LIMITS.max} characters`;
  const lower = password.toLowerCase();
  if (isCommon(lower)) return 'is a commonly used password';
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
 * guessing spread over many usernames from one place. An attempt reserves its place before the
 * password is hashed (`reserve`) and gives it back or turns it into a failure after (`settle`), so
 * parallel attempts cannot all pass the check before any of them has failed.
 */
export class AddressFailures {
  private readonly windows = new Map<string, { startMs: number; count: number }>();
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Ms until the address may try again, or 0; attempts still in progress count as failures. */
  blockedFor(ip: string, nowMs: number): number {
    const pending = this.pending.get(ip) ?? 0;
    const w = this.windows.get(ip);
    const count = !w || nowMs - w.startMs >= this.windowMs ? 0 : w.count;
    if (count + pending < this.max) return 0;
    return w && count > 0 ? Math.max(1, w.startMs + this.windowMs - nowMs) : 1000;
  }

  /** Takes a place for one attempt: 0 when taken, else the wait (nothing is taken). Synchronous, so atomic. */
  reserve(ip: string, nowMs: number): number {
    const wait = this.blockedFor(ip, nowMs);
    if (wait === 0) this.pending.set(ip, (this.pending.get(ip) ?? 0) + 1);
    return wait;
  }

  /** Ends a reserved attempt; a failed one is recorded. */
  settle(ip: string, nowMs: number, failed: boolean): void {
    const pending = (this.pending.get(ip) ?? 1) - 1;
    if (pending > 0) this.pending.set(ip, pending);
    else this.pending.delete(ip);
    if (failed) this.record(ip, nowMs);
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
