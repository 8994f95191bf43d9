import net from 'node:net';

/**
 * Stream clients for `bench:stream`, run as their own process: N raw keep-alive connections to
 * `GET /api/v1/stream/events`. A few "probe" clients (spread over the connection order, the last
 * one included) decode every frame and time each `event.ingested` from its `occurred_at` — the
 * moment the load generator made the event — to its arrival; the others only count bytes, so
 * thousands of clients cost this process little (their bytes are counted, never decoded). The body
 * may be chunked or delimited by the connection's end; probes decode either. Commands arrive over IPC.
 */

export type SseCommand =
  | { cmd: 'open'; url: string; token: string; clients: number; probes: number }
  | { cmd: 'reset' }
  | { cmd: 'stats' }
  | { cmd: 'close' };

export interface SseStats {
  open: number;
  failed: number;
  /** Connections the server ended (e.g. a slow client dropped). */
  closed: number;
  bytes: number;
  frames: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
}

interface Client {
  socket: net.Socket;
  probe: boolean;
  headerDone: boolean;
  /** The response uses chunked transfer coding (else the body runs to the connection's end). */
  chunked: boolean;
  buf: string;
  /** Bytes of the current HTTP chunk still to read (chunked transfer coding). */
  chunkLeft: number;
  text: string;
}

const clients: Client[] = [];
let latencies: number[] = [];
let bytes = 0;
let frames = 0;
let closed = 0;
const SHARED_READ = Buffer.alloc(64 * 1024);
const OCCURRED = /"occurred_at":"([^"]+)"/;

function onFrames(c: Client, now: number): void {
  let end: number;
  while ((end = c.text.indexOf('\n\n')) >= 0) {
    const frame = c.text.slice(0, end);
    c.text = c.text.slice(end + 2);
    if (!frame.includes('event: event.ingested')) continue;
    frames++;
    const m = OCCURRED.exec(frame);
    if (m) latencies.push(now - Date.parse(m[1]));
  }
}

/** Decodes the body of a probe client into `text`. */
function decode(c: Client, now: number): void {
  if (!c.chunked) {
    c.text += c.buf;
    c.buf = '';
  }
  while (c.chunked) {
    if (c.chunkLeft > 0) {
      const take = c.buf.slice(0, c.chunkLeft);
      c.text += take;
      c.chunkLeft -= take.length;
      c.buf = c.buf.slice(take.length);
      if (c.chunkLeft > 0) break;
      continue;
    }
    const eol = c.buf.indexOf('\r\n');
    if (eol < 0) break;
    const line = c.buf.slice(0, eol);
    c.buf = c.buf.slice(eol + 2);
    if (line === '') continue; // the CRLF after a chunk's data
    c.chunkLeft = parseInt(line, 16);
    if (Number.isNaN(c.chunkLeft)) c.chunkLeft = 0;
  }
  onFrames(c, now);
}

async function open(url: string, token: string, n: number, probes: number): Promise<{ open: number; failed: number }> {
  const { hostname, port, host } = new URL(url);
  const probeEvery = Math.max(1, Math.floor(n / Math.max(1, probes)));
  let ok = 0;
  let failed = 0;
  const batch = 200;
  for (let start = 0; start < n; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - start) }, (_, k) => {
        const i = start + k;
        return new Promise<void>((resolve) => {
          const probe = i % probeEvery === 0 || i === n - 1;
          const onChunk = (chunk: string | Buffer) => {
            bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
            if (!c.headerDone) {
              c.buf += typeof chunk === 'string' ? chunk : chunk.toString('latin1');
              const end = c.buf.indexOf('\r\n\r\n');
              if (end < 0) return;
              const status = Number(c.buf.slice(9, 12));
              c.headerDone = true;
              c.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(c.buf.slice(0, end));
              c.buf = c.buf.slice(end + 4);
              if (status === 200) {
                ok++;
                clients.push(c);
              } else {
                failed++;
                socket.destroy();
              }
              resolve();
              if (!c.probe) c.buf = '';
              else decode(c, Date.now());
              return;
            }
            if (c.probe) {
              c.buf += chunk;
              decode(c, Date.now());
            }
          };
          // Counting clients read into one shared buffer: no allocation per read in this process.
          const onread = { buffer: SHARED_READ, callback: (nread: number) => (onChunk(SHARED_READ.subarray(0, nread)), true) };
          const socket = net.connect({ host: hostname, port: Number(port), ...(probe ? {} : { onread }) });
          const c: Client = { socket, probe, headerDone: false, chunked: false, buf: '', chunkLeft: 0, text: '' };
          if (probe) {
            socket.setEncoding('utf8');
            socket.on('data', onChunk);
          }
          socket.on('connect', () =>
            socket.write(`GET /api/v1/stream/events HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`),
          );
          socket.on('error', () => undefined);
          socket.on('close', () => {
            if (!c.headerDone) {
              failed++;
              resolve();
            } else closed++;
          });
        });
      }),
    );
  }
  return { open: ok, failed };
}

function stats(): SseStats {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : 0);
  return {
    open: clients.length - closed,
    failed: 0,
    closed,
    bytes,
    frames,
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    max_ms: sorted.length ? sorted[sorted.length - 1] : 0,
  };
}

process.on('message', (msg: SseCommand & { id: number }) => {
  const reply = (body: unknown) => process.send!({ id: msg.id, body });
  switch (msg.cmd) {
    case 'open':
      void open(msg.url, msg.token, msg.clients, msg.probes).then(reply);
      break;
    case 'reset':
      latencies = [];
      bytes = 0;
      frames = 0;
      reply({});
      break;
    case 'stats':
      reply(stats());
      break;
    case 'close':
      for (const c of clients) c.socket.destroy();
      clients.length = 0;
      reply({});
      break;
  }
});
process.on('disconnect', () => process.exit(0));
