import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';

describe('FakeClock', () => {
  it('runs due timers in due order, each at its due instant, and only those due', () => {
    const clock = new FakeClock(1000);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => seen.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => seen.push(`c@${clock.now()}`), 31);
    clock.advance(30);
    expect(seen).toEqual(['a@1010', 'b@1020']);
    expect(clock.now()).toBe(1030);
    clock.advance(1);
    expect(seen).toEqual(['a@1010', 'b@1020', 'c@1031']);
    expect(clock.pending()).toBe(0);
  });

  it('repeats an interval until cancelled and runs timers set by a timer within the window', () => {
    const clock = new FakeClock();
    const seen: number[] = [];
    const every = clock.setInterval(() => seen.push(clock.now()), 10);
    clock.setTimeout(() => clock.setTimeout(() => seen.push(-clock.now()), 5), 12);
    clock.advance(35);
    expect(seen).toEqual([10, -17, 20, 30]);
    every.cancel();
    clock.advance(100);
    expect(seen).toEqual([10, -17, 20, 30]);
    expect(clock.nextDue()).toBeNull();
  });

  it('ties run in the order they were set; a cancelled timer never runs', () => {
    const clock = new FakeClock();
    const seen: string[] = [];
    clock.setTimeout(() => seen.push('first'), 5);
    const gone = clock.setTimeout(() => seen.push('cancelled'), 5);
    clock.setTimeout(() => seen.push('second'), 5);
    gone.cancel();
    clock.advance(5);
    expect(seen).toEqual(['first', 'second']);
  });

  it('advanceAsync sees timers set after an await in a timer', async () => {
    const clock = new FakeClock();
    const seen: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(100);
        await Promise.resolve();
        seen.push(clock.now());
      }
    };
    const done = loop();
    clock.advance(300);
    expect(seen).toEqual([]);
    await clock.advanceAsync(300);
    await done;
    expect(seen).toEqual([300, 400, 500]);
  });
});
