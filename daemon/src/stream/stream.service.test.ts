import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../test/helpers/fake-clock.js';
import { Bus } from '../bus.js';
import { systemClock } from '../clock.js';
import { StreamHub } from './stream.service.js';

describe('StreamHub over a loopback HTTP server', () => {
  let server: http.Server | null = null;
  let hub: StreamHub | null = null;
  afterEach(async () => {
    for (const socket of rawSockets.splice(0)) socket.destroy();
    hub?.stop();
    await new Promise((r) => server?.close(r));
  });

  /** A started hub with the tests' limits, `options` changing some. */
  const startHub = (bus: Bus, options: Partial<ConstructorParameters<typeof StreamHub>[4]> = {}, authorize: ConstructorParameters<typeof StreamHub>[3] = async () => ({ scope: null }), clock: ConstructorParameters<typeof StreamHub>[1] = systemClock) => {
    const started = new StreamHub(bus, clock, pino({ level: 'silent' }), authorize, { countersIntervalMs: 250, heartbeatMs: 60_000, bufferSize: 16, maxUnsentBytes: 1 << 20, batchMs: 5, maxClients: 100, maxPerUser: 100, ...options });
    started.start();
    return started;
  };
  /** A loopback server answering every request with `handler`; its port. */
  const listen = async (handler: http.RequestListener): Promise<number> => {
    server = http.createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  };

  it('sends a comment heartbeat on an idle stream and ends streams on stop', async () => {
    const bus = new Bus(() => undefined);
    hub = startHub(bus, { heartbeatMs: 40, bufferSize: 8 });
    const port = await listen((_req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, null));
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith('retry: 3000\n\nevent: counters\n')).toBe(true);
    const head = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/event-stream; charset=utf-8', '']);
    expect(hub.clientCount).toBe(1);
    hub.stop();
    for (;;) if ((await reader.read()).done) break;
    expect(hub.clientCount).toBe(0);
  });

  it('answers a stream opened after stop with 503 and closes it, so the HTTP server can close', async () => {
    const bus = new Bus(() => undefined);
    hub = startHub(bus, { heartbeatMs: 40, bufferSize: 8 });
    const port = await listen((_req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, null));
    // A client on a kept-alive connection that survives the stop, as a browser's is.
    const client = await rawClient(port);
    await client.received('event: counters');
    hub.stop();
    await new Promise((r) => client.socket.once('end', r));
    const late = await fetch(`http://127.0.0.1:${port}/`);
    expect([late.status, late.headers.get('retry-after'), await late.text()]).toEqual([503, '1', 'SAC is shutting down\n']);
    expect(hub.clientCount).toBe(0);
    // Nothing keeps the server open: close() completes.
    await new Promise<void>((r) => {
      server!.close(() => r());
      server!.closeIdleConnections();
    });
  });

  it('ends the streams of a user found inactive at a heartbeat (a change made through another daemon)', async () => {
    const bus = new Bus(() => undefined);
    const active = new Set(['u1', 'u2']);
    hub = startHub(bus, { heartbeatMs: 30, bufferSize: 8 }, async (user) => (active.has(user.id) ? { scope: null } : null));
    const port = await listen((req, res) => hub!.attach(res, { id: String(req.headers['x-user']), username: 'u', role: 'monitor' }, null));
    const url = `http://127.0.0.1:${port}/`;
    const [one, two] = await Promise.all([fetch(url, { headers: { 'x-user': 'u1' } }), fetch(url, { headers: { 'x-user': 'u2' } })]);
    expect(hub.clientCount).toBe(2);
    active.delete('u1');
    const reader = one.body!.getReader();
    for (;;) if ((await reader.read()).done) break;
    expect(hub.clientCount).toBe(1);
    await two.body!.cancel();
  });

  it('replays only what the bounded buffer still holds', async () => {
    const bus = new Bus(() => undefined);
    hub = startHub(bus, { bufferSize: 4 });
    for (let i = 0; i < 10; i++) bus.publish({ type: 'host.status_changed', data: { host_id: `h${i}`, hostname: 'x', status: 'online' } });
    const port = await listen((req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, String(req.headers['last-event-id'])));
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'Last-Event-ID': 'otherboot.3' } });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: counters')) text += new TextDecoder().decode((await reader.read()).value);
    expect([...text.matchAll(/"host_id":"(h\d)"/g)].map((m) => m[1])).toEqual(['h6', 'h7', 'h8', 'h9']);
    await reader.cancel();
  });
  it('gives a client that resumes while frames are pending each frame once, in order', async () => {
    const bus = new Bus(() => undefined);
    hub = startHub(bus, { batchMs: 50 });
    const publish = (host: string) => bus.publish({ type: 'host.status_changed', data: { host_id: host, hostname: 'x', status: 'online' } });
    const port = await listen((req, res) => {
      // Published just before the client joins: pending (not yet sent) when it attaches.
      for (const h of ['h1', 'h2', 'h3']) publish(h);
      hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, String(req.headers['last-event-id']));
    });
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'Last-Event-ID': 'otherboot.1' } });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: counters')) text += new TextDecoder().decode((await reader.read()).value);
    publish('h4');
    // Received: its tick has been sent, so h5 goes out in a later one.
    while (!text.includes('"h4"')) text += new TextDecoder().decode((await reader.read()).value);
    publish('h5');
    while (!text.includes('"h5"')) text += new TextDecoder().decode((await reader.read()).value);
    expect([...text.matchAll(/"host_id":"(h\d)"/g)].map((m) => m[1])).toEqual(['h1', 'h2', 'h3', 'h4', 'h5']);
    await reader.cancel();
  });

  it('starts a tick that waited for a long fan-out as soon as the fan-out ends, not batchMs after it', async () => {
    const bus = new Bus(() => undefined);
    const clock = new FakeClock(0);
    hub = startHub(bus, { batchMs: 100, maxClients: 1000, maxPerUser: 1000 }, undefined, clock);
    const publish = (host: string) => bus.publish({ type: 'host.status_changed', data: { host_id: host, hostname: 'x', status: 'online' } });
    const port = await listen((_req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, null));
    // One more client than a fan-out writes per event-loop turn (500), so a fan-out spans turns.
    const clients = await Promise.all(Array.from({ length: 501 }, () => rawClient(port)));
    // A busy machine takes a while to answer 501 requests.
    await expect.poll(() => hub!.clientCount, { timeout: 20_000 }).toBe(501);
    publish('h1');
    clock.advance(100); // the tick: 500 clients get h1 now, the last one on a later turn
    publish('h2'); // asked for at 100, while that fan-out runs
    clock.advance(150); // the fan-out takes until 250 by the clock
    await Promise.all(clients.map((c) => c.received('"h1"'))); // it has ended
    expect(clock.nextDue()).toBe(250);
    clock.advance(0);
    await clients[0].received('"h2"');
  });
});

/** The raw clients' sockets, destroyed after each test (a server closes only once its connections have). */
const rawSockets: net.Socket[] = [];

/** A stream client over a raw socket (hundreds of them are cheap): resolves `received` once its text includes a string. */
async function rawClient(port: number): Promise<{ socket: net.Socket; received(text: string): Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  rawSockets.push(socket);
  // Stopping the hub may reset connections.
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  socket.setEncoding('utf8');
  let text = '';
  socket.on('data', (chunk: string) => (text += chunk));
  return {
    socket,
    received: (wanted) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!text.includes(wanted)) return;
          socket.off('data', check);
          resolve();
        };
        socket.on('data', check);
        check();
      }),
  };
}
