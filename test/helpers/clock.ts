import type { Clock } from '../../daemon/src/clock.js';

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
