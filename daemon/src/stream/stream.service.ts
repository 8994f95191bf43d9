import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { SessionUser, StreamCounters } from '../../../shared/src/index.js';
import type { Bus } from '../bus.js';
import { errorSummary } from '../errors.js';
import { randomBase62 } from '../random.js';
import { countersDelay, emptyCounters, foldCounters, isStreamMessage, replayFrom, sseFrame } from './stream.rules.js';

export interface StreamOptions {
  /** Counters frames are at least this far apart. */
  countersIntervalMs: number;
  /** A comment line keeps idle connections (and proxies) alive. */
  heartbeatMs: number;
  /** Messages kept for `Last-Event-ID` resume. */
  bufferSize: number;
  /** A client whose unsent data passes this is dropped (it reconnects and resumes). */
  maxUnsentBytes: number;
  /** Messages published within this many ms go out as one write per client. */
  batchMs: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  countersIntervalMs: 250,
  heartbeatMs: 15_000,
  bufferSize: 4096,
  maxUnsentBytes: 1024 * 1024,
  // At most 40 writes per client per second however busy ingest is (5,000 clients: 200k/s at most).
  batchMs: 25,
};

interface Client {
  res: ServerResponse;
  user: SessionUser;
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/**
 * The live stream hub: turns bus messages into SSE frames once, and writes every batch to all
 * clients as one buffer (a burst of ingested events costs one write per client, not one per
 * event). Keeps a ring of recent frames for resume, coalesces counters, drops slow clients.
 */
export class StreamHub {
  private readonly clients = new Set<Client>();
  private readonly ring: Buffer[];
  private readonly boot = randomBase62(8);
  private seq = 0;
  private pending: Buffer[] = [];
  private flushScheduled = false;
  private readonly counters: StreamCounters = emptyCounters();
  private countersDirty = false;
  private countersTimer: NodeJS.Timeout | null = null;
  private lastCountersMs: number | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private dropped = 0;

  /**
   * `isActive` is asked on every heartbeat for each user with an open stream, so a user
   * deactivated or deleted through another daemon loses the stream within one heartbeat.
   */
  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly isActive: (userId: string) => Promise<boolean>,
    private readonly opts: StreamOptions = DEFAULT_STREAM_OPTIONS,
  ) {
    this.ring = new Array<Buffer>(opts.bufferSize);
  }

  start(): void {
    this.unsubscribe = this.bus.subscribe((message) => {
      if (!isStreamMessage(message)) return;
      if (message.type === 'counters') {
        // A feature publishing its own totals replaces ours; either way they are coalesced.
        Object.assign(this.counters, structuredClone(message.data));
        this.markCounters();
        return;
      }
      const seq = ++this.seq;
      const frame = sseFrame(message, `${this.boot}.${seq}`);
      this.ring[seq % this.opts.bufferSize] = frame;
      if (this.clients.size > 0) this.enqueue(frame);
      if (foldCounters(this.counters, message)) this.markCounters();
    });
    this.heartbeat = setInterval(() => {
      this.broadcast(HEARTBEAT);
      void this.revalidate();
    }, this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.countersTimer) clearTimeout(this.countersTimer);
    for (const client of this.clients) client.res.end();
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Slow clients dropped since start (for /metrics). */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Starts streaming to an authorised client: headers, replay after `lastEventId`, current counters. */
  attach(res: ServerResponse, user: SessionUser, lastEventId: string | null): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.socket?.setNoDelay(true);
    res.socket?.setKeepAlive(true, 30_000);
    const parts: Buffer[] = [Buffer.from('retry: 3000\n\n')];
    const oldest = Math.max(1, this.seq - this.opts.bufferSize + 1);
    const from = this.seq === 0 ? null : replayFrom(lastEventId, this.boot, oldest, this.seq);
    if (from !== null) for (let s = from; s <= this.seq; s++) parts.push(this.ring[s % this.opts.bufferSize]);
    parts.push(sseFrame({ type: 'counters', data: this.counters }, null));
    const client: Client = { res, user };
    this.clients.add(client);
    res.on('close', () => this.clients.delete(client));
    this.write(client, Buffer.concat(parts));
  }

  /** Ends the streams of a user (after any change to it: deactivation, deletion, new password). */
  dropUser(userId: string): void {
    for (const client of this.clients) {
      if (client.user.id === userId) {
        this.clients.delete(client);
        client.res.end();
      }
    }
  }

  private async revalidate(): Promise<void> {
    const userIds = new Set([...this.clients].map((c) => c.user.id));
    for (const id of userIds) {
      try {
        if (!(await this.isActive(id))) this.dropUser(id);
      } catch (err) {
        // Store unreachable: keep the streams; the next heartbeat asks again.
        this.logger.warn({ err: errorSummary(err) }, 'stream user check failed');
        return;
      }
    }
  }

  private enqueue(frame: Buffer): void {
    this.pending.push(frame);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      const batch = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
      this.pending = [];
      this.broadcast(batch);
    }, this.opts.batchMs).unref();
  }

  private broadcast(data: Buffer): void {
    for (const client of this.clients) this.write(client, data);
  }

  private write(client: Client, data: Buffer): void {
    const { res } = client;
    if (res.destroyed) {
      this.clients.delete(client);
      return;
    }
    res.write(data);
    if (res.writableLength > this.opts.maxUnsentBytes) {
      this.clients.delete(client);
      this.dropped++;
      this.logger.warn({ user: client.user.username, unsent: res.writableLength }, 'stream client dropped: too far behind');
      res.destroy();
    }
  }

  private markCounters(): void {
    this.countersDirty = true;
    if (this.countersTimer) return;
    const delay = countersDelay(this.lastCountersMs, performance.now(), this.opts.countersIntervalMs);
    this.countersTimer = setTimeout(() => {
      this.countersTimer = null;
      if (!this.countersDirty) return;
      this.countersDirty = false;
      this.lastCountersMs = performance.now();
      if (this.clients.size > 0) this.enqueue(sseFrame({ type: 'counters', data: this.counters }, null));
    }, delay);
    this.countersTimer.unref();
  }
}
