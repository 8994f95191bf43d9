import type { Clock, Timer } from '../../daemon/src/clock.js';

interface Scheduled {
  due: number;
  /** Creation order: timers due at the same instant run in the order they were set. */
  seq: number;
  fn: () => void;
  /** Set for an interval: the period after which it is due again. */
  every?: number;
}

/**
 * A clock for service tests: time stands still at `startMs` and the timers (`setTimeout`,
 * `setInterval`, `sleep`) run only when the test moves time with `advance`/`advanceAsync`, in
 * due order, each with `now()` at its due instant — behaviour a timer drives, without waiting.
 */
export class FakeClock implements Clock {
  private ms: number;
  private seq = 0;
  private readonly timers = new Map<number, Scheduled>();

  constructor(startMs = 0) {
    this.ms = startMs;
  }

  now(): number {
    return this.ms;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.schedule({ due: this.ms + Math.max(0, ms), seq: 0, fn });
  }

  setInterval(fn: () => void, ms: number): Timer {
    // Like Node, a period below 1 ms is 1 ms (a zero period would never let time move on).
    const every = Math.max(1, ms);
    return this.schedule({ due: this.ms + every, seq: 0, fn, every });
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimeout(resolve, ms));
  }

  /** How many timers are waiting (a cancelled or finished timeout no longer counts). */
  pending(): number {
    return this.timers.size;
  }

  /** When the next timer is due, or null when none waits. */
  nextDue(): number | null {
    return this.next()?.due ?? null;
  }

  /**
   * Moves time `ms` forward, running every timer due on the way (also those the run timers set
   * within the window). Synchronous: a timer's async continuation runs after this returns — use
   * `advanceAsync` when what a timer starts sets the next timer after an await.
   */
  advance(ms: number): void {
    const end = this.ms + ms;
    for (let t = this.dueBy(end); t; t = this.dueBy(end)) this.run(t);
    this.ms = end;
  }

  /**
   * Like `advance`, but lets pending promise work settle before each due timer is looked for and
   * after the last: a service that awaits (a store call, a sleep) and then sets its next timer is
   * seen doing so within the same advance.
   */
  async advanceAsync(ms: number): Promise<void> {
    const end = this.ms + ms;
    await settle();
    for (let t = this.dueBy(end); t; t = this.dueBy(end)) {
      this.run(t);
      await settle();
    }
    this.ms = end;
  }

  private schedule(s: Scheduled): Timer {
    const id = ++this.seq;
    this.timers.set(id, { ...s, seq: id });
    return { cancel: () => void this.timers.delete(id) };
  }

  private next(): (Scheduled & { id: number }) | undefined {
    let best: (Scheduled & { id: number }) | undefined;
    for (const [id, t] of this.timers) {
      if (!best || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = { ...t, id };
    }
    return best;
  }

  private dueBy(end: number): (Scheduled & { id: number }) | undefined {
    const t = this.next();
    return t && t.due <= end ? t : undefined;
  }

  private run({ id, ...t }: Scheduled & { id: number }): void {
    this.ms = Math.max(this.ms, t.due);
    if (t.every === undefined) this.timers.delete(id);
    else this.timers.set(id, { ...t, due: t.due + t.every, seq: ++this.seq });
    t.fn();
  }
}

/** Lets queued promise callbacks (and what they chain) run: a macrotask turn, twice over. */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
