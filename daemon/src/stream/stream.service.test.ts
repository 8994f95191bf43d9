import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Bus } from '../bus.js';
import { systemClock } from '../clock.js';
import { StreamHub } from './stream.service.js';

describe('StreamHub over a loopback HTTP server', () => {
  let server: http.Server | null = null;
  let hub: StreamHub | null = null;
  afterEach(async () => {
    hub?.stop();
    await new Promise((r) => server?.close(r));
  });

  it('sends a comment heartbeat on an idle stream and ends streams on stop', async () => {
    const bus = new Bus(() => undefined);
    hub = new StreamHub(bus, systemClock, pino({ level: 'silent' }), async () => ({ scope: null }), { countersIntervalMs: 250, heartbeatMs: 40, bufferSize: 8, maxUnsentBytes: 1 << 20, batchMs: 5, maxClients: 100, maxPerUser: 100 });
    hub.start();
    server = http.createServer((_req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, null));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes(': heartbeat')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith('retry: 3000\n\nevent: counters\n')).toBe(true);
    const head = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'text/event-stream; charset=utf-8', '']);
    expect(hub.clientCount).toBe(1);
    hub.stop();
    for (;;) if ((await reader.read()).done) break;
    expect(hub.clientCount).toBe(0);
  });

  it('ends the streams of a user found inactive at a heartbeat (a change made through another daemon)', async () => {
    const bus = new Bus(() => undefined);
    const active = new Set(['u1', 'u2']);
    hub = new StreamHub(bus, systemClock, pino({ level: 'silent' }), async (user) => (active.has(user.id) ? { scope: null } : null), { countersIntervalMs: 250, heartbeatMs: 30, bufferSize: 8, maxUnsentBytes: 1 << 20, batchMs: 5, maxClients: 100, maxPerUser: 100 });
    hub.start();
    server = http.createServer((req, res) => hub!.attach(res, { id: String(req.headers['x-user']), username: 'u', role: 'monitor' }, null));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
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
    hub = new StreamHub(bus, systemClock, pino({ level: 'silent' }), async () => ({ scope: null }), { countersIntervalMs: 250, heartbeatMs: 60_000, bufferSize: 4, maxUnsentBytes: 1 << 20, batchMs: 5, maxClients: 100, maxPerUser: 100 });
    hub.start();
    for (let i = 0; i < 10; i++) bus.publish({ type: 'host.status_changed', data: { host_id: `h${i}`, hostname: 'x', status: 'online' } });
    server = http.createServer((req, res) => hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, String(req.headers['last-event-id'])));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'Last-Event-ID': 'otherboot.3' } });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: counters')) text += new TextDecoder().decode((await reader.read()).value);
    expect([...text.matchAll(/"host_id":"(h\d)"/g)].map((m) => m[1])).toEqual(['h6', 'h7', 'h8', 'h9']);
    await reader.cancel();
  });
  it('gives a client that resumes while frames are pending each frame once, in order', async () => {
    const bus = new Bus(() => undefined);
    hub = new StreamHub(bus, systemClock, pino({ level: 'silent' }), async () => ({ scope: null }), { countersIntervalMs: 250, heartbeatMs: 60_000, bufferSize: 16, maxUnsentBytes: 1 << 20, batchMs: 50, maxClients: 100, maxPerUser: 100 });
    hub.start();
    const publish = (host: string) => bus.publish({ type: 'host.status_changed', data: { host_id: host, hostname: 'x', status: 'online' } });
    server = http.createServer((req, res) => {
      // Published just before the client joins: pending (not yet sent) when it attaches.
      for (const h of ['h1', 'h2', 'h3']) publish(h);
      hub!.attach(res, { id: 'u1', username: 'u', role: 'monitor' }, String(req.headers['last-event-id']));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers: { 'Last-Event-ID': 'otherboot.1' } });
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
});
