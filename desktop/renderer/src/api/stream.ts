import { STREAM_MESSAGE_TYPES, type StreamMessage } from '../../../../shared/src/stream.types';

export type StreamStatus = 'idle' | 'connecting' | 'live' | 'reconnecting';

/** The part of EventSource the client uses, so tests can hand in a fake. */
export interface EventSourceLike {
  addEventListener(type: string, listener: (ev: MessageEvent) => void): void;
  onopen: ((ev: Event) => void) | null;
  onerror: ((ev: Event) => void) | null;
  close(): void;
}

export interface StreamClientOptions {
  /** Fetches a fresh single-use ticket (EventSource cannot send an Authorization header). */
  ticket: () => Promise<string>;
  /** The stream URL for a ticket and the last message id seen (for resuming). */
  url: (ticket: string, lastEventId: string | null) => string;
  onMessage: (message: StreamMessage) => void;
  onStatus: (status: StreamStatus) => void;
  open?: (url: string) => EventSourceLike;
  /** Delay before reconnect attempt n (1-based). */
  backoffMs?: (attempt: number) => number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** 1 s, 2 s, 4 s … capped at 30 s. */
export const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));

/**
 * The live stream: gets a ticket, opens an EventSource, and on any error closes it and reconnects
 * with a new ticket after a growing delay (a ticket is single-use, so the browser's own retry would
 * be refused). The last message id is passed on reconnect so the daemon can replay what was missed.
 */
export class StreamClient {
  private source: EventSourceLike | null = null;
  private timer: unknown = null;
  private attempt = 0;
  private lastEventId: string | null = null;
  private running = false;
  private generation = 0;

  constructor(private readonly opts: StreamClientOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.attempt = 0;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    this.generation += 1;
    this.source?.close();
    this.source = null;
    if (this.timer !== null) (this.opts.clearTimer ?? clearTimeout)(this.timer as ReturnType<typeof setTimeout>);
    this.timer = null;
    this.opts.onStatus('idle');
  }

  private async connect(): Promise<void> {
    const generation = this.generation;
    this.opts.onStatus(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let ticket: string;
    try {
      ticket = await this.opts.ticket();
    } catch {
      if (generation === this.generation) this.scheduleReconnect();
      return;
    }
    if (!this.running || generation !== this.generation) return;
    const open = this.opts.open ?? ((url: string) => new EventSource(url) as EventSourceLike);
    const source = open(this.opts.url(ticket, this.lastEventId));
    this.source = source;
    source.onopen = () => {
      this.attempt = 0;
      this.opts.onStatus('live');
    };
    source.onerror = () => {
      if (this.source !== source) return;
      source.close();
      this.source = null;
      this.scheduleReconnect();
    };
    for (const type of STREAM_MESSAGE_TYPES) {
      source.addEventListener(type, (ev) => {
        if (ev.lastEventId) this.lastEventId = ev.lastEventId;
        let data: unknown;
        try {
          data = JSON.parse(String(ev.data));
        } catch {
          return;
        }
        this.opts.onMessage({ type, data } as StreamMessage);
      });
    }
  }

  private scheduleReconnect(): void {
    if (!this.running) return;
    this.attempt += 1;
    this.opts.onStatus('reconnecting');
    const delay = (this.opts.backoffMs ?? defaultBackoff)(this.attempt);
    this.timer = (this.opts.setTimer ?? setTimeout)(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }
}
