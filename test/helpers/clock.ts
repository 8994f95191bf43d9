import { systemClock, type Clock } from '../../daemon/src/clock.js';

/** Real timers for the clocks a whole daemon runs on: its jobs and dispatchers keep running in real time. */
const realTimers: Omit<Clock, 'now'> = { setTimeout: systemClock.setTimeout, setInterval: systemClock.setInterval, sleep: systemClock.sleep };

/**
 * A clock standing still at `startMs` until the test moves it (`advance`, `set`); its timers run
 * in real time (for a daemon under HTTP test — a service test takes `FakeClock`, whose timers the
 * test runs).
 */
export class ManualClock implements Clock {
  readonly setTimeout = realTimers.setTimeout;
  readonly setInterval = realTimers.setInterval;
  readonly sleep = realTimers.sleep;

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

/** A clock that follows real time plus an offset the test moves forward (no sleeping); real timers. */
export class TestClock implements Clock {
  readonly setTimeout = realTimers.setTimeout;
  readonly setInterval = realTimers.setInterval;
  readonly sleep = realTimers.sleep;
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
