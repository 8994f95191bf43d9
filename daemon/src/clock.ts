/** A scheduled call; `cancel` is safe to call more than once and after the call ran. */
export interface Timer {
  cancel(): void;
}

/**
 * Every clock read and every timer goes through this, so tests can control time
 * (`test/helpers/fake-clock.ts` runs the timers when the test advances it).
 */
export interface Clock {
  now(): number;
  /**
   * Calls `fn` once after `ms`. The system clock's timers are unref'd: a background timer never
   * keeps the process alive (what it waits beside — a server, a socket — does that).
   */
  setTimeout(fn: () => void, ms: number): Timer;
  /** Calls `fn` every `ms` until cancelled; unref'd like `setTimeout`. */
  setInterval(fn: () => void, ms: number): Timer;
  /**
   * Resolves after `ms`. Unlike the timers this keeps the process alive: the caller awaits it, as
   * it would await the I/O it retries (a reconnect loop at startup, a retry during shutdown).
   */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms).unref();
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, ms).unref();
    return { cancel: () => clearInterval(t) };
  },
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
