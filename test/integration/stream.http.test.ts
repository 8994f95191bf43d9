import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('live stream on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  beforeAll(async () => {
    sac = await startTestSac(kind);
    token = await adminToken(sac);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('refuses no credentials, a bad token and a reused ticket with 401; a fresh ticket works once', async () => {
    expect((await openStream(sac, {})).status).toBe(401);
    expect((await openStream(sac, { token: 'not-a-token' })).status).toBe(401);
    expect((await openStream(sac, { ticket: 'made-up-ticket' })).status).toBe(401);
    expect((await api(sac, 'POST', '/api/v1/stream/ticket')).status).toBe(401);
    const issued = await api(sac, 'POST', '/api/v1/stream/ticket', { token });
    expect(issued.status).toBe(201);
    const first = await openStream(sac, { ticket: issued.body.ticket });
    expect(first.status).toBe(200);
    await first.next((f) => f.event === 'counters');
    first.close();
    expect((await openStream(sac, { ticket: issued.body.ticket })).status).toBe(401);
  });

  it('delivers ingested events with ids and coalesces counters to at most one frame per 250 ms', async () => {
    const s = await openStream(sac, { token });
    const initial = await s.next((f) => f.event === 'counters');
    expect(initial.id).toBeNull();
    const events = Array.from({ length: 30 }, () => buildEvent({ severity: 'high' }));
    await Promise.all(events.map((e) => postEvent(sac.url, sac.apiKey, e)));
    for (const e of events) {
      const f = await s.next((x) => x.event === 'event.ingested' && x.data.event_id === e.event_id);
      expect(f.id).toMatch(/^[A-Za-z0-9]+\.\d+$/);
      expect(f.data).toMatchObject({ hostname: 'RDS01', severity: 'high', type: 'rdp.login.failed' });
    }
    const last = await s.next((f) => f.event === 'counters' && f.data.events_total >= initial.data.events_total + 30);
    expect(last.data.by_severity.high).toBeGreaterThanOrEqual(initial.data.by_severity.high + 30);
    const counters = s.frames.filter((f) => f.event === 'counters');
    // Arrival times carry the machine's scheduling jitter, so the bound is on the span of the
    // coalesced frames (one per 250 ms at most), not on each gap.
    if (counters.length > 2) expect(counters[counters.length - 1].at - counters[1].at).toBeGreaterThanOrEqual((counters.length - 2) * 250 - 150);
    expect(counters.length).toBeLessThan(10);
    s.close();
  });

  it('resumes after Last-Event-ID (header or query) with exactly the messages missed', async () => {
    const s = await openStream(sac, { token });
    const seen = buildEvent();
    await postEvent(sac.url, sac.apiKey, seen);
    const lastSeen = await s.next((f) => f.data?.event_id === seen.event_id);
    s.close();
    const missed = [buildEvent(), buildEvent()];
    for (const e of missed) await postEvent(sac.url, sac.apiKey, e);
    for (const auth of [{ lastEventId: lastSeen.id! }, { lastEventIdQuery: lastSeen.id! }]) {
      const resumed = await openStream(sac, { token, ...auth });
      // On MongoDB the stream follows the cluster feed, a poll behind the 201: the last missed
      // event may come live just after the replay rather than in it — once, either way.
      await resumed.next((f) => f.data?.event_id === missed[1].event_id);
      const replayed = resumed.frames.filter((f) => f.event === 'event.ingested').map((f) => f.data.event_id);
      expect(replayed).toEqual(missed.map((e) => e.event_id));
      resumed.close();
    }
  });

  it('never shows sign-in locks, and ends the stream of a user who is deactivated', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = (await login(sac, user.username, password)).body.token as string;
    const s = await openStream(sac, { token: monitor });
    await s.next((f) => f.event === 'counters');
    await sac.sac.facts.publish([{ type: 'auth.login_locked', username: 'x', ip: undefined, locked_until: new Date().toISOString(), attempts: 3 }], 'service');
    await api(sac, 'PATCH', `/api/v1/users/${user.id}`, { token, body: { active: false } });
    await s.ended;
    expect(s.frames.some((f) => f.event.startsWith('auth.'))).toBe(false);
    expect((await openStream(sac, { token: monitor })).status).toBe(401);
  });

  // The hub's rule does not depend on the store; on MongoDB these synthetic messages would first
  // queue for the cluster feed, which is measured by the multi-daemon test instead.
  it.runIf(kind === 'sqlite')('drops a client that stops reading once more than 1 MiB waits for it; a client that reads gets every frame', async () => {
    const before = sac.sac.stream.clientCount;
    const slow = await rawStream(sac.sac.port, token);
    const reader = await rawStream(sac.sac.port, token);
    await expect.poll(() => sac.sac.stream.clientCount, { timeout: 10_000 }).toBe(before + 2);
    slow.socket.pause();
    const title = 'x'.repeat(200);
    const data = { event_id: '', host_id: 'h', hostname: 'FLOOD', type: 'flood.test', severity: 'info' as const, title, occurred_at: '', received_at: '', actor_user: null };
    const dropped = sac.sac.stream.droppedCount;
    let published = 0;
    for (let round = 0; round < 400 && sac.sac.stream.droppedCount === dropped; round++) {
      for (let i = 0; i < 500; i++) sac.sac.bus.publish({ type: 'event.ingested', data: { ...data, event_id: `${round}-${i}` } });
      published += 500;
      // The reader keeps up: each round reaches it before the next is published.
      await until(() => reader.ingested() >= published);
    }
    expect(sac.sac.stream.droppedCount).toBe(dropped + 1);
    // The server ended the slow client's connection: once it reads again, it reaches the end.
    slow.socket.resume();
    await slow.ended;
    expect(sac.sac.stream.clientCount).toBe(before + 1);
    // The reader stays connected and goes on receiving, ingested events included.
    const marker = buildEvent();
    expect((await postEvent(sac.url, sac.apiKey, marker)).status).toBe(201);
    await until(() => reader.text().includes(marker.event_id));
    expect(reader.ingested()).toBe(published + 1);
    reader.socket.destroy();
    slow.socket.destroy();
  }, 90_000);
});

/** Resolves once `ready()` holds, checking on every event-loop turn; rejects after `ms`. */
async function until(ready: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * A stream read over a raw socket, as a client that counts rather than parses (thousands of
 * frames): the `event.ingested` frames so far, the newest text, and when the server ended it.
 */
async function rawStream(port: number, token: string): Promise<{ socket: net.Socket; ingested(): number; text(): string; ended: Promise<void> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  socket.write(`GET /api/v1/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  const MARK = 'event: event.ingested\n';
  let count = 0;
  let tail = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    // Keep a short tail so a frame split between two chunks is counted once.
    const text = tail + chunk;
    for (let i = text.indexOf(MARK); i >= 0; i = text.indexOf(MARK, i + MARK.length)) count++;
    const keep = Math.min(text.length, 4096);
    const cut = text.length - keep;
    // Marks wholly inside the kept tail were counted; drop the tail up to past the last of them.
    const last = text.lastIndexOf(MARK);
    tail = last >= cut ? text.slice(last + MARK.length) : text.slice(cut);
  });
  // The server may reset a dropped client's connection.
  socket.on('error', () => undefined);
  const ended = new Promise<void>((r) => socket.once('close', () => r()));
  return { socket, ingested: () => count, text: () => tail, ended };
}

describe('live stream connection caps', () => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac('sqlite', { SAC_STREAM_MAX_PER_USER: '2', SAC_STREAM_MAX_CLIENTS: '3' });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('refuses a user past their cap with 429 and anyone past the total with 503, both with Retry-After', async () => {
    const admin = await adminToken(sac);
    const monitor = await userToken(sac, 'monitor');
    const mine = [await openStream(sac, { token: admin }), await openStream(sac, { token: admin })];
    expect(mine.map((s) => s.status)).toEqual([200, 200]);

    const overUser = await fetch(`${sac.url}/api/v1/stream/events`, { headers: { Authorization: `Bearer ${admin}` } });
    expect(overUser.status).toBe(429);
    expect(overUser.headers.get('retry-after')).toBe('30');
    expect(((await overUser.json()) as { error: { code: string } }).error.code).toBe('stream/too_many_per_user');

    const other = await openStream(sac, { token: monitor });
    expect(other.status).toBe(200);
    const overTotal = await fetch(`${sac.url}/api/v1/stream/events`, { headers: { Authorization: `Bearer ${monitor}` } });
    expect(overTotal.status).toBe(503);
    expect(overTotal.headers.get('retry-after')).toBe('30');
    expect(((await overTotal.json()) as { error: { code: string } }).error.code).toBe('stream/too_many_clients');

    // a closed stream frees its place at once
    mine[0].close();
    await expect.poll(() => sac.sac.stream.clientCount).toBe(2);
    const again = await openStream(sac, { token: admin });
    expect(again.status).toBe(200);
    again.close();
    mine[1].close();
    other.close();
  });
});
