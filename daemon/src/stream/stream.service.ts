import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { SessionUser, StreamCounters } from '../../../shared/src/index.js';
import type { BusMessage } from '../bus.js';
import type { Clock, Timer } from '../clock.js';
import { errorSummary } from '../errors.js';
import { randomBase62 } from '../random.js';
import { emptyCounters, foldCounters, isStreamMessage, replayFrom, spacingDelay, sseFrame } from './stream.rules.js';

export interface StreamOptions {
  /** Counters frames are at least this far apart. */
  countersIntervalMs: number;
  /** A comment line keeps idle connections (and proxies) alive. */
  heartbeatMs: number;
  /** Messages kept for `Last-Event-ID` resume. */
  bufferSize: number;
  /** A client whose unsent data passes this is dropped (it reconnects and resumes). */
  maxUnsentBytes: number;
  /** One tick: everything published within it goes out as one buffer, written once to each client. */
  batchMs: number;
  /** Open streams on this daemon; past it new ones are refused (each holds a socket and buffers). */
  maxClients: number;
  /** Open streams of one user; past it new ones are refused, so one account cannot take them all. */
  maxPerUser: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  countersIntervalMs: 250,
  heartbeatMs: 15_000,
  bufferSize: 4096,
  maxUnsentBytes: 1024 * 1024,
  // At most 10 writes per client per second however busy ingest is (5,000 clients: 50k/s at most).
  batchMs: 100,
  maxClients: 2000,
  maxPerUser: 10,
};

/**
 * Where the hub's messages come from: the in-process bus (one daemon: positions are the hub's own
 * count) or the cluster feed (every daemon on a MongoDB store: positions and `epoch` are the
 * feed's, so every daemon names a frame alike and a stream resumes on any of them).
 */
export interface StreamSource {
  /** The feed hands each message's position as the second argument; the bus hands its publish details, not a position. */
  subscribe(listener: (message: BusMessage, position?: unknown) => void): () => void;
  readonly epoch?: string;
}

/**
 * What a user may receive now: null when they may not stream any more (deactivated, deleted);
 * `scope`, the host ids of a user limited to host groups (null: every host).
 */
export type StreamAccess = (user: SessionUser) => Promise<{ scope: ReadonlySet<string> | null } | null>;

/** Clients written per event-loop turn during a fan-out, so ingest I/O is served in between. */
const FANOUT_SLICE = 500;

/** What the hub keeps per client: the socket is the key, so no per-client closure or response object is held. */
interface Client {
  userId: string;
  username: string;
  role: SessionUser['role'];
  /**
   * Host ids of a user limited to host groups: such a client gets only the frames of those hosts
   * (each written on its own, not the shared tick buffer) and no fleet counters; null: everything.
   */
  scope: ReadonlySet<string> | null;
  /** The console session the stream belongs to (signing out ends it), or null. */
  sessionId: string | null;
  /** Ends the stream when its token expires. */
  endTimer: Timer | null;
  /** The newest seq `attach` replayed while later ones were still pending; 0 once caught up. */
  joinedAt: number;
}

/** One tick's output: frames `from + 1 … upTo` (then counters, if due) joined in `data`. */
interface Tick {
  data: Buffer;
  from: number;
  upTo: number;
  counters: Buffer | null;
  heartbeat: boolean;
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');
const RETRY = Buffer.from('retry: 3000\n\n');

/**
 * The live stream hub: turns bus messages into SSE frames once and, once per tick, joins all of
 * them into one buffer that is written unchanged to every client's socket — the body is delimited
 * by the connection's end rather than chunked, so no per-client framing is needed and fan-out costs
 * one socket write per client per tick whatever the ingest rate (heartbeats and counters ride on
 * ticks too; a tick is written in slices so ingest is served meanwhile). Keeps a ring of recent
 * frames for resume, sends counters at most every `countersIntervalMs`, drops slow clients.
 */
export class StreamHub {
  private readonly clients = new Map<Socket, Client>();
  private readonly ring: Buffer[];
  /** The source position of each ring frame (its id), by the hub's own seq. */
  private readonly positions: number[];
  /** The host (or hosts: a rollout's) each ring frame is about (null: none), for clients limited to host groups. */
  private readonly hostIds: (string | readonly string[] | null)[];
  private boot = randomBase62(8);
  private seq = 0;
  /** Frames not yet sent: exactly the ring's seqs `sentSeq + 1 … seq`. */
  private pending: Buffer[] = [];
  private sentSeq = 0;
  private tickTimer: Timer | null = null;
  /** When the next tick was first asked for (clock ms): it goes out `batchMs` after that, or as soon as the fan-out before it ends. */
  private tickWantedMs: number | null = null;
  private fanningOut = false;
  private heartbeatDue = false;
  private readonly counters: StreamCounters = emptyCounters();
  private countersDirty = false;
  private lastCountersMs: number | null = null;
  private heartbeat: Timer | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Set by stop(): a stream attached after it would keep the HTTP server's close waiting forever. */
  private stopped = false;
  private dropped = 0;
  /** One listener shared by every client socket (`this` is the socket). */
  private readonly onSocketClose: (this: Socket) => void;

  /**
   * `access` is asked on every heartbeat for each user with an open stream, so a user
   * deactivated or deleted through another daemon loses the stream within one heartbeat.
   */
  constructor(
    private readonly source: StreamSource,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly access: StreamAccess,
    private readonly opts: StreamOptions = DEFAULT_STREAM_OPTIONS,
  ) {
    this.ring = new Array<Buffer>(opts.bufferSize);
    this.positions = new Array<number>(opts.bufferSize);
    this.hostIds = new Array<string | readonly string[] | null>(opts.bufferSize);
    const clients = this.clients;
    this.onSocketClose = function onSocketClose(this: Socket) {
      const client = clients.get(this);
      client?.endTimer?.cancel();
      clients.delete(this);
    };
  }

  start(): void {
    if (this.source.epoch) this.boot = this.source.epoch;
    this.unsubscribe = this.source.subscribe((message, position) => {
      if (!isStreamMessage(message)) return;
      if (message.type === 'counters') {
        // A feature publishing its own totals replaces ours; either way they are coalesced.
        Object.assign(this.counters, structuredClone(message.data));
        this.markCounters();
        return;
      }
      const seq = ++this.seq;
      const id = typeof position === 'number' ? position : seq;
      const frame = sseFrame(message, `${this.boot}.${id}`);
      this.ring[seq % this.opts.bufferSize] = frame;
      this.positions[seq % this.opts.bufferSize] = id;
      this.hostIds[seq % this.opts.bufferSize] = 'host_id' in message.data ? message.data.host_id : 'host_ids' in message.data ? message.data.host_ids : null;
      this.pending.push(frame);
      this.scheduleTick();
      if (foldCounters(this.counters, message)) this.markCounters();
    });
    this.heartbeat = this.clock.setInterval(() => {
      // Rides on the next tick: no extra write per client, and fanned out in slices like the rest.
      this.heartbeatDue = true;
      if (this.clients.size > 0) this.scheduleTick();
      void this.revalidate();
    }, this.opts.heartbeatMs);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.heartbeat?.cancel();
    this.tickTimer?.cancel();
    this.tickTimer = null;
    for (const [socket, client] of this.clients) {
      client.endTimer?.cancel();
      socket.end();
    }
    this.clients.clear();
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Slow clients dropped since start (for /metrics). */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Why another stream of this user cannot be opened now, or null when it can. */
  capacityProblem(userId: string): 'per_user' | 'total' | null {
    if (this.clients.size >= this.opts.maxClients) return 'total';
    let mine = 0;
    for (const c of this.clients.values()) if (c.userId === userId && ++mine >= this.opts.maxPerUser) return 'per_user';
    return null;
  }

  /**
   * Starts streaming to an authorised client: headers, replay after `lastEventId`, current counters.
   * `end`: the session the client's token belongs to and the ms until that token expires, when the stream ends.
   */
  attach(
    res: ServerResponse,
    user: SessionUser,
    lastEventId: string | null,
    end: { sessionId: string; inMs: number } | null = null,
    scope: ReadonlySet<string> | null = null,
  ): void {
    if (this.stopped) {
      // Shutting down: a console reconnecting (EventSource retries over a kept-alive connection)
      // is sent to try again — to this daemon once restarted, or to another.
      res.writeHead(503, { 'Retry-After': '1', Connection: 'close', 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('SAC is shutting down\n');
      return;
    }
    // No chunked coding: the body ends with the connection, so every client gets the same bytes.
    res.useChunkedEncodingByDefault = false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const socket = res.socket;
    // Frames go straight to the socket, so a HEAD request (no body) ends here.
    if (!socket || socket.destroyed || res.req.method === 'HEAD') {
      res.end();
      return;
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 30_000);
    const parts: Buffer[] = [RETRY];
    const oldest = Math.max(1, this.seq - this.opts.bufferSize + 1);
    const from = this.seq === 0 ? null : replayFrom(lastEventId, this.boot, oldest, this.seq, (s) => this.positions[s % this.opts.bufferSize]);
    if (from !== null) parts.push(...this.frames(from, this.seq, scope));
    if (!scope) parts.push(sseFrame({ type: 'counters', data: this.counters }, null));
    // Frames still pending are in the replay (or predate the client): its first tick skips them.
    const client: Client = {
      userId: user.id,
      username: user.username,
      role: user.role,
      scope,
      sessionId: end?.sessionId ?? null,
      endTimer: null,
      joinedAt: this.seq > this.sentSeq ? this.seq : 0,
    };
    if (end) {
      client.endTimer = this.clock.setTimeout(() => this.drop(socket), Math.max(0, end.inMs));
    }
    this.clients.set(socket, client);
    socket.on('close', this.onSocketClose);
    this.write(socket, client, Buffer.concat(parts));
  }

  /** Ends the streams of a user (after any change to it: deactivation, deletion, new password). */
  dropUser(userId: string): void {
    for (const [socket, client] of this.clients) if (client.userId === userId) this.drop(socket);
  }

  /** Ends the streams opened with the tokens of one session (after it signed out). */
  dropSession(sessionId: string): void {
    for (const [socket, client] of this.clients) if (client.sessionId === sessionId) this.drop(socket);
  }

  private drop(socket: Socket): void {
    const client = this.clients.get(socket);
    if (!client) return;
    this.forget(socket, client);
    socket.end();
  }

  private forget(socket: Socket, client: Client): void {
    client.endTimer?.cancel();
    this.clients.delete(socket);
  }

  private async revalidate(): Promise<void> {
    const users = new Map([...this.clients.values()].map((c) => [c.userId, { id: c.userId, username: c.username, role: c.role }]));
    for (const [id, user] of users) {
      try {
        const access = await this.access(user);
        if (!access) this.dropUser(id);
        else for (const c of this.clients.values()) if (c.userId === id) c.scope = access.scope;
      } catch (err) {
        // Store unreachable: keep the streams; the next heartbeat asks again.
        this.logger.warn({ err: errorSummary(err) }, 'stream user check failed');
        return;
      }
    }
  }

  /**
   * A tick `batchMs` after the first thing it carries was published. A fan-out longer than that
   * (thousands of clients on a busy machine) delays it: it then starts as soon as the fan-out ends,
   * so a frame waits at most one tick behind it, not that plus another `batchMs`.
   */
  private scheduleTick(): void {
    const now = this.clock.now();
    this.tickWantedMs ??= now;
    if (this.tickTimer || this.fanningOut) return;
    this.tickTimer = this.clock.setTimeout(() => this.tick(), spacingDelay(this.tickWantedMs, now, this.opts.batchMs));
  }

  /** Sends what the tick gathered (and the counters when they are due) as one buffer to all clients. */
  private tick(): void {
    this.tickTimer = null;
    this.tickWantedMs = null;
    const parts = this.pending;
    this.pending = [];
    const from = this.sentSeq;
    this.sentSeq = this.seq;
    let counters: Buffer | null = null;
    if (this.countersDirty) {
      const now = performance.now();
      if (spacingDelay(this.lastCountersMs, now, this.opts.countersIntervalMs) === 0) {
        this.countersDirty = false;
        this.lastCountersMs = now;
        counters = sseFrame({ type: 'counters', data: this.counters }, null);
        parts.push(counters);
      } else {
        this.scheduleTick();
      }
    }
    if (this.heartbeatDue) {
      this.heartbeatDue = false;
      parts.push(HEARTBEAT);
    }
    if (parts.length === 0 || this.clients.size === 0) return;
    this.fanningOut = true;
    const tick: Tick = { data: parts.length === 1 ? parts[0] : Buffer.concat(parts), from, upTo: this.seq, counters, heartbeat: parts.at(-1) === HEARTBEAT };
    this.fanOut(tick, [...this.clients.keys()], 0);
  }

  /** The ring's frames `from … to` (both included); with a scope, only those of its hosts. */
  private frames(from: number, to: number, scope: ReadonlySet<string> | null = null): Buffer[] {
    const out: Buffer[] = [];
    for (let s = from; s <= to; s++) {
      const host = this.hostIds[s % this.opts.bufferSize];
      if (!scope || inScope(host, scope)) out.push(this.ring[s % this.opts.bufferSize]);
    }
    return out;
  }

  /** A limited client's share of a tick: the frames of its hosts it has not had, the heartbeat; no counters. */
  private scopedData(client: Client, scope: ReadonlySet<string>, tick: Tick): Buffer | null {
    const parts = this.frames(Math.max(tick.from, client.joinedAt) + 1, tick.upTo, scope);
    if (tick.heartbeat) parts.push(HEARTBEAT);
    return parts.length === 0 ? null : Buffer.concat(parts);
  }

  /** A client that joined while frames were pending gets only the frames after its replay. */
  private dataFor(client: Client, tick: Tick): Buffer | null {
    if (client.joinedAt <= tick.from) return tick.data;
    const parts = this.frames(client.joinedAt + 1, tick.upTo);
    if (tick.counters) parts.push(tick.counters);
    return parts.length === 0 ? null : Buffer.concat(parts);
  }

  /**
   * Writes one tick's buffer to the clients of the tick, a slice per event-loop turn; the next tick
   * waits for it, so every client gets the ticks in order. Clients gone meanwhile are skipped;
   * clients that arrived meanwhile are not in `sockets`: these frames were in their replay.
   */
  private fanOut(tick: Tick, sockets: Socket[], start: number): void {
    const end = Math.min(sockets.length, start + FANOUT_SLICE);
    for (let i = start; i < end; i++) {
      const client = this.clients.get(sockets[i]);
      if (!client) continue;
      const data = client.scope ? this.scopedData(client, client.scope, tick) : client.joinedAt === 0 ? tick.data : this.dataFor(client, tick);
      client.joinedAt = 0;
      if (data) this.write(sockets[i], client, data);
    }
    if (end < sockets.length) {
      setImmediate(() => this.fanOut(tick, sockets, end));
      return;
    }
    this.fanningOut = false;
    if (this.pending.length > 0 || this.countersDirty || this.heartbeatDue) this.scheduleTick();
  }

  private write(socket: Socket, client: Client, data: Buffer): void {
    if (socket.destroyed || socket.writableEnded) {
      this.forget(socket, client);
      return;
    }
    // The same Buffer goes to every socket; a socket that cannot take it now only keeps a reference.
    socket.write(data);
    if (socket.writableLength > this.opts.maxUnsentBytes) {
      this.forget(socket, client);
      this.dropped++;
      this.logger.warn({ user: client.username, unsent: socket.writableLength }, 'stream client dropped: too far behind');
      socket.destroy();
    }
  }

  private markCounters(): void {
    this.countersDirty = true;
    if (this.clients.size > 0) this.scheduleTick();
  }
}

/** Whether a frame about `host` is in `scope`: its one host, or every one of several (a rollout's). */
function inScope(host: string | readonly string[] | null, scope: ReadonlySet<string>): boolean {
  if (host === null) return false;
  return typeof host === 'string' ? scope.has(host) : host.length > 0 && host.every((h) => scope.has(h));
}
