import type { Logger } from 'pino';
import type { BusMessage } from '../bus.js';
import type { Clock, Timer } from '../clock.js';
import { errorSummary } from '../errors.js';
import { randomBase62 } from '../random.js';
import type { FeedRepo } from '../store/index.js';
import { isStreamMessage } from '../stream/index.js';

/** Receives every feed message of the cluster once, in feed order; `fromHere` marks this daemon's own. */
export type ClusterListener = (message: BusMessage, position: number, fromHere: boolean) => void;

export interface FeedChannelOptions {
  /** How often the feed is read: bounds how late another daemon's message shows up here. */
  pollMs: number;
  /** A gap (a position taken but not yet visible) is waited for this long, then passed over. */
  gapWaitMs: number;
  /** Batches read per query. */
  readLimit: number;
  /** Messages written per batch. */
  writeLimit: number;
  /** Messages waiting for the store past this many are not sent to the other daemons (logged). */
  maxQueued: number;
  /** At stop, what is queued is written for at most this long. */
  stopWaitMs: number;
}

/**
 * A message's position (its stream id) is its batch id × this + its index in the batch: increasing
 * in feed order, the same on every daemon. Batches are never larger (see `writeLimit`).
 */
export const FEED_BATCH_SLOTS = 1000;

/**
 * Feed records are kept this long: a daemon reads within its poll interval, so this only bounds
 * what a daemon paused (GC, a slow store) may still catch up on; a stream resumes from its hub's buffer.
 */
export const FEED_KEEP_MS = 10 * 60_000;
/** The leader prunes the feed this often. */
export const FEED_PRUNE_INTERVAL_MS = 60_000;

/**
 * A message that takes longer than this from its publication to a write or a read here is logged
 * (a read of another daemon's batch compares with that daemon's clock: skew between machines adds in).
 */
const LATE_MS = 1000;

export const DEFAULT_FEED_OPTIONS: FeedChannelOptions = {
  pollMs: 100,
  gapWaitMs: 3000,
  readLimit: 100,
  writeLimit: FEED_BATCH_SLOTS,
  maxQueued: 50_000,
  stopWaitMs: 5000,
};

/** Messages the other daemons need: stream frames (counters are folded by each hub) and cache changes. */
export function isFeedMessage(message: BusMessage): boolean {
  if (message.type === 'cluster.changed') return true;
  return isStreamMessage(message) && message.type !== 'counters';
}

/**
 * The cross-daemon half of the bus on a shared MongoDB store. Every feed message published on
 * this daemon's bus is appended to the store's feed — what gathered while the previous append was
 * in flight goes as one batch, one insert at a time, so this daemon's messages keep their order
 * and a busy daemon writes a few documents per second, not one per message; a poller reads the feed after its cursor and hands every record —
 * this daemon's and the others' — to the listeners in position order, so every daemon's stream
 * shows the same frames under the same ids and `Last-Event-ID` resumes on any of them.
 * A missing position (a gap: a store whose reads hand later batches before an earlier one is
 * visible, or batches pruned before this daemon read them) holds the cursor for at most
 * `gapWaitMs`, then the cursor moves past it. The MongoDB feed hands batches in unbroken id order
 * (feed.mongo.ts), so there a gap means this daemon fell behind the pruning.
 */
export class FeedChannel {
  readonly origin = randomBase62(10);
  private readonly listeners = new Set<ClusterListener>();
  private queue: BusMessage[] = [];
  /** When each queued message was published (the batch's time is its first message's). */
  private queuedAt: number[] = [];
  private writing: Promise<void> | null = null;
  private cursor = 0;
  private gapSinceMs: number | null = null;
  private pollTimer: Timer | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /** Messages refused in a row because the queue was full. */
  private overflow = 0;
  private epochValue = '';

  constructor(
    private readonly deps: {
      subscribeBus: (listener: (message: BusMessage) => void) => () => void;
      feed: FeedRepo;
      clock: Clock;
      logger: Logger;
    },
    private readonly opts: FeedChannelOptions = DEFAULT_FEED_OPTIONS,
  ) {}

  /** The feed's identity, the same on every daemon of the cluster (stream ids carry it). */
  get epoch(): string {
    return this.epochValue;
  }

  /** Starts reading after the newest record (history before this start is not replayed) and writing. */
  async start(): Promise<void> {
    this.epochValue = await this.deps.feed.epoch();
    this.cursor = await this.deps.feed.newest();
    this.unsubscribe = this.deps.subscribeBus((message) => {
      if (!isFeedMessage(message)) return;
      if (this.queue.length >= this.opts.maxQueued) {
        this.overflow++;
        if (this.overflow === 1) this.deps.logger.error({ queued: this.queue.length }, 'feed queue full: messages not sent to the other daemons');
        return;
      }
      this.overflow = 0;
      this.queue.push(message);
      this.queuedAt.push(this.deps.clock.now());
      this.flush();
    });
    this.schedulePoll(0);
  }

  /** Stops polling after writing what is queued (for at most `stopWaitMs`). */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    let timer: Timer | undefined;
    const late = new Promise<boolean>((r) => (timer = this.deps.clock.setTimeout(() => r(true), this.opts.stopWaitMs)));
    if (await Promise.race([this.drain().then(() => false), late])) {
      this.deps.logger.error({ lost: this.queue.length }, 'feed messages not written before stop');
      this.queue = [];
      this.queuedAt = [];
    }
    timer?.cancel();
    this.stopped = true;
    this.pollTimer?.cancel();
  }

  /** Resolves when every message published so far is in the feed (or could not be written). */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  subscribe(listener: ClusterListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private flush(): void {
    if (this.writing) return;
    this.writing = this.writeQueued().finally(() => {
      this.writing = null;
    });
  }

  private async writeQueued(): Promise<void> {
    let failures = 0;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, this.opts.writeLimit);
      const publishedMs = this.queuedAt[0];
      const startMs = this.deps.clock.now();
      try {
        await this.deps.feed.append(this.origin, batch, publishedMs);
        this.dequeue(batch.length);
        failures = 0;
        const doneMs = this.deps.clock.now();
        if (doneMs - publishedMs > LATE_MS) {
          this.deps.logger.warn({ queued_ms: startMs - publishedMs, insert_ms: doneMs - startMs, messages: batch.length }, 'feed write late');
        }
      } catch (err) {
        failures++;
        // The store is away: keep the order and try again; give up on the batch after ~30 s so a
        // long outage cannot grow the queue without bound (the other daemons then miss it).
        if (failures > 60 || this.stopped) {
          this.deps.logger.error({ err: errorSummary(err), lost: batch.length }, 'feed messages not written');
          this.dequeue(batch.length);
          failures = 0;
          continue;
        }
        this.deps.logger.warn({ err: errorSummary(err) }, 'feed write failed, retrying');
        await this.deps.clock.sleep(500);
      }
    }
  }

  private dequeue(n: number): void {
    this.queue = this.queue.slice(n);
    this.queuedAt = this.queuedAt.slice(n);
  }

  private schedulePoll(delayMs: number): void {
    if (this.stopped) return;
    this.pollTimer = this.deps.clock.setTimeout(() => void this.poll(), delayMs);
  }

  private async poll(): Promise<void> {
    let more = false;
    try {
      const batches = await this.deps.feed.after(this.cursor, this.opts.readLimit);
      more = batches.length === this.opts.readLimit;
      const now = this.deps.clock.now();
      for (const batch of batches) {
        if (batch.id !== this.cursor + 1) {
          // A gap: another daemon's insert at a lower id is not visible yet.
          this.gapSinceMs ??= now;
          if (now - this.gapSinceMs < this.opts.gapWaitMs) break;
          this.deps.logger.warn({ from: this.cursor + 1, to: batch.id - 1 }, 'feed gap passed over');
        }
        this.gapSinceMs = null;
        this.cursor = batch.id;
        if (now - batch.at_ms > LATE_MS) this.deps.logger.warn({ id: batch.id, mine: batch.origin === this.origin, lag_ms: now - batch.at_ms }, 'feed batch late');
        batch.messages.forEach((message, i) => this.deliver(batch.id * FEED_BATCH_SLOTS + i, batch.origin, message as BusMessage));
      }
    } catch (err) {
      this.deps.logger.warn({ err: errorSummary(err) }, 'feed read failed');
    }
    this.schedulePoll(more ? 0 : this.opts.pollMs);
  }

  private deliver(position: number, origin: string, message: BusMessage): void {
    const fromHere = origin === this.origin;
    for (const listener of this.listeners) {
      try {
        listener(message, position, fromHere);
      } catch (err) {
        this.deps.logger.error({ err: errorSummary(err), type: message.type }, 'feed listener failed');
      }
    }
  }
}
