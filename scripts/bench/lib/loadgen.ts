import net from 'node:net';
import { createEventFactory, type FactoryEvent } from './event-factory.js';

/**
 * The load generator, run as its own process (see `LoadGenerator` in loadgen-client.ts) so its
 * CPU is not charged to the server under test. It speaks HTTP/1.1 over raw keep-alive sockets —
 * one request in flight per connection, as agents do — because node's own HTTP client costs more
 * per request than the servers being measured. Commands arrive over IPC, one phase at a time.
 */

export interface PhaseSpec {
  /** Base URL of the server under test (http://127.0.0.1:port). */
  url: string;
  apiKey: string;
  connections: number;
  seconds: number;
  /** `fresh`: new unique events; `duplicate`: re-send events this generator saw answered 201. */
  mode: 'fresh' | 'duplicate';
  /** Open-loop requests per second; absent: closed loop, as fast as answers come back. */
  rate?: number;
  /** Keep the event ids answered 201 (for the durability check). */
  recordCreated?: boolean;
  /** Only the hosts numbered `index` modulo `of`: one daemon's share when a load balancer keeps each agent on one daemon. */
  hostShare?: { index: number; of: number };
}

export interface PhaseResult {
  requests: number;
  seconds: number;
  rps: number;
  statuses: Record<string, number>;
  /** Socket errors, timeouts and unparseable answers. */
  socketErrors: number;
  p50_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  /** 503 answers that lacked a Retry-After header. */
  missingRetryAfter: number;
  /** Latency of the 503 answers alone (how fast overload is signalled). */
  refused_p50_ms: number;
  refused_p99_ms: number;
  created: string[];
}

const REQUEST_TIMEOUT_MS = 15_000;
const KEEP_FOR_DUPLICATES = 50_000;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

class Latencies {
  private data = new Float64Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  sorted(): Float64Array {
    return this.data.slice(0, this.length).sort();
  }
}

interface Conn {
  socket: net.Socket;
  buf: Buffer;
  busy: boolean;
  sentAt: number;
  current: FactoryEvent | null;
  timer: NodeJS.Timeout | null;
}

/** One event factory per host share, kept across phases. */
const factories = new Map<string, ReturnType<typeof createEventFactory>>();
function factoryFor(share: PhaseSpec['hostShare']): ReturnType<typeof createEventFactory> {
  const key = share ? `${share.index}/${share.of}` : 'all';
  let f = factories.get(key);
  if (!f) factories.set(key, (f = createEventFactory({ hostShare: share })));
  return f;
}
/** Per server URL, a ring of events it answered 201, for the duplicate phase. */
const accepted = new Map<string, { events: FactoryEvent[]; next: number }>();

function keepAccepted(url: string, e: FactoryEvent): void {
  let ring = accepted.get(url);
  if (!ring) accepted.set(url, (ring = { events: [], next: 0 }));
  if (ring.events.length < KEEP_FOR_DUPLICATES) ring.events.push(e);
  else ring.events[ring.next++ % KEEP_FOR_DUPLICATES] = e;
}

function requestBytes(host: string, apiKey: string, e: FactoryEvent): Buffer {
  const body = Buffer.from(e.body);
  const head =
    `POST /api/v1/events HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
    `Idempotency-Key: ${e.eventId}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/** Parses one complete response at the start of `buf`: its status and byte length, or null if incomplete. */
function parseResponse(buf: Buffer): { status: number; length: number; retryAfter: boolean } | null {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const head = buf.toString('latin1', 0, end).toLowerCase();
  const status = Number(head.slice(9, 12));
  const m = /\r\ncontent-length:\s*(\d+)/.exec(head);
  const length = end + 4 + (m ? Number(m[1]) : 0);
  if (buf.length < length) return null;
  return { status, length, retryAfter: head.includes('\r\nretry-after:') };
}

async function runPhase(spec: PhaseSpec): Promise<PhaseResult> {
  const { hostname, port, host } = new URL(spec.url);
  const lat = new Latencies();
  const refusedLat = new Latencies();
  const statuses: Record<string, number> = {};
  const created: string[] = [];
  let socketErrors = 0;
  let missingRetryAfter = 0;
  let requests = 0;
  let stopping = false;
  const started = performance.now();
  const endAt = started + spec.seconds * 1000;
  // Open loop: request i is due at started + i/rate; latency counts from when it was due, so a
  // server that falls behind is charged for the wait (no coordinated omission).
  let due = 0;
  const idle: Conn[] = [];
  let dupIndex = 0;

  const resend = accepted.get(spec.url)?.events ?? [];
  if (spec.mode === 'duplicate' && resend.length === 0) throw new Error(`no accepted events of ${spec.url} to re-send`);
  const factory = factoryFor(spec.hostShare);
  const nextEvent = (): FactoryEvent => (spec.mode === 'duplicate' ? resend[dupIndex++ % resend.length] : factory.next());

  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  let open = 0;

  const send = (c: Conn, dueAt: number) => {
    c.busy = true;
    c.current = nextEvent();
    c.sentAt = dueAt;
    c.socket.write(requestBytes(host, spec.apiKey, c.current));
    c.timer = setTimeout(() => c.socket.destroy(new Error('timeout')), REQUEST_TIMEOUT_MS);
  };

  const release = (c: Conn) => {
    c.busy = false;
    if (stopping || performance.now() >= endAt) {
      c.socket.end();
      return;
    }
    if (spec.rate) idle.push(c);
    else send(c, performance.now());
  };

  const connect = (): Conn => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setNoDelay(true);
    const c: Conn = { socket, buf: Buffer.alloc(0), busy: false, sentAt: 0, current: null, timer: null };
    open++;
    socket.on('data', (chunk: Buffer) => {
      c.buf = c.buf.length === 0 ? chunk : Buffer.concat([c.buf, chunk]);
      const res = parseResponse(c.buf);
      if (!res) return;
      c.buf = c.buf.subarray(res.length);
      if (c.timer) clearTimeout(c.timer);
      const now = performance.now();
      requests++;
      lat.push(now - c.sentAt);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 503) {
        refusedLat.push(now - c.sentAt);
        if (!res.retryAfter) missingRetryAfter++;
      }
      if (res.status === 201 && c.current) {
        if (spec.recordCreated) created.push(c.current.eventId);
        if (spec.mode === 'fresh') keepAccepted(spec.url, c.current);
      }
      release(c);
    });
    socket.on('error', () => undefined);
    socket.on('close', (hadError) => {
      if (c.timer) clearTimeout(c.timer);
      if (c.busy) {
        socketErrors++;
        requests++;
      }
      open--;
      const i = idle.indexOf(c);
      if (i >= 0) idle.splice(i, 1);
      // A server that closed the connection (413, overload, crash) gets a fresh one while the phase runs.
      if ((hadError || c.busy) && !stopping && performance.now() < endAt) {
        const fresh = connect();
        fresh.socket.once('connect', () => release(fresh));
      }
      if (open === 0) resolveDone();
    });
    return c;
  };

  const conns = Array.from({ length: spec.connections }, connect);
  await Promise.all(conns.map((c) => new Promise<void>((r) => c.socket.once('connect', () => r()))));
  const t0 = performance.now();
  if (spec.rate) {
    idle.push(...conns);
    const interval = 1000 / spec.rate;
    const tick = () => {
      const now = performance.now();
      if (now >= endAt) {
        stopping = true;
        for (const c of idle) c.socket.end();
        idle.length = 0;
        if (open === 0) resolveDone();
        return;
      }
      while (t0 + due * interval <= now && idle.length > 0) {
        send(idle.pop()!, t0 + due * interval);
        due++;
      }
      setTimeout(tick, 1);
    };
    tick();
  } else {
    for (const c of conns) send(c, performance.now());
    setTimeout(() => (stopping = true), Math.max(0, endAt - performance.now()));
  }
  await done;
  const seconds = (performance.now() - t0) / 1000;
  const sorted = lat.sorted();
  const refused = refusedLat.sorted();
  return {
    requests,
    seconds,
    rps: requests / seconds,
    statuses,
    socketErrors,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    p999_ms: percentile(sorted, 99.9),
    max_ms: sorted.length ? sorted[sorted.length - 1] : 0,
    missingRetryAfter,
    refused_p50_ms: percentile(refused, 50),
    refused_p99_ms: percentile(refused, 99),
    created,
  };
}

process.on('message', (msg: { id: number; phase: PhaseSpec }) => {
  runPhase(msg.phase).then(
    (result) => process.send!({ id: msg.id, result }),
    (err: unknown) => process.send!({ id: msg.id, error: String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
