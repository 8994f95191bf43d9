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
 * Polls `check` until it returns a truthy value and resolves with it; after `timeoutMs` throws,
 * naming `what` it waited for. For work done in the background (jobs, dispatchers, peers), never
 * as a fixed sleep.
 */
export async function waitFor<T>(what: string, check: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
