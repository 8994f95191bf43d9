import type { Clock } from '../../daemon/src/clock.js';

/** A clock standing still at `startMs` until the test moves it (`advance`, `set`). */
export class ManualClock implements Clock {
  constructor(private ms: number) {}

  now(): number {
    return this.ms;
  }

  advance(ms: number): void {
    this.ms += ms;
  }

  set(ms: number): void {
    this.ms = ms;
  }
}

/** A clock that follows real time plus an offset the test moves forward (no sleeping). */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/**
 * Polls `probe` until it returns a truthy value and resolves with it; rejects after `timeoutMs`.
 * For work the daemon does in the background (jobs, dispatchers), never as a fixed sleep.
 */
export async function waitFor<T>(probe: () => Promise<T> | T, timeoutMs = 10_000, intervalMs = 20): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`waitFor: condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
