import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import net from 'node:net';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/src/index.js';
import type { FromIngestThread, ToIngestThread } from '../../daemon/src/ingest/ingest-thread.js';
import { waitFor } from '../helpers/clock.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Small batches, so many of them are formed, committed and answered at once. */
const SMALL_BATCHES = { SAC_INGEST_BATCH_MAX: '4' };
const SENDERS = 16;

/** Agents posting unique events until `stop()`; every answer is kept with its event. */
function agents(sac: TestSac) {
  const answers: { event: EventInput; status: number; code?: string; retryAfter: string | null }[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const event = buildEvent({ host: { hostname: `QUEUE-${answers.length % 7}` } });
      const res = await postEvent(sac.url, sac.apiKey, event);
      answers.push({ event, status: res.status, code: (res.body as { error?: { code?: string } }).error?.code, retryAfter: res.headers.get('retry-after') });
    }
  };
  const running = Array.from({ length: SENDERS }, loop);
  return {
    answers,
    created: () => answers.filter((a) => a.status === 201).length,
    stop: async () => {
      stopped = true;
      await Promise.all(running);
    },
  };
}

/** HTTP/1.1 requests written back to back on one connection (pipelined); resolves with the answers in the order they came. */
function pipelined(url: string, apiKey: string, events: EventInput[]): Promise<{ status: number; event_id: string }[]> {
  const { hostname, port } = new URL(url);
  const requests = events.map((event) => {
    const body = JSON.stringify(event);
    return `POST /api/v1/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${apiKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  });
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let buffered = Buffer.alloc(0);
    const answers: { status: number; event_id: string }[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString('latin1');
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = JSON.parse(buffered.subarray(end + 4, end + 4 + length).toString('utf8')) as { event_id: string };
        answers.push({ status: Number(head.split(' ')[1]), event_id: body.event_id });
        buffered = buffered.subarray(end + 4 + length);
        if (answers.length === events.length) {
          socket.end();
          resolve(answers);
        }
      }
    });
    socket.write(requests.join(''));
  });
}

/** The daemon of the running test and its agents, stopped after each test whatever its outcome. */
let sac: TestSac | undefined;
let load: ReturnType<typeof agents> | undefined;
afterEach(async () => {
  await load?.stop();
  await sac?.close();
  sac = load = undefined;
});

describe.each(STORE_KINDS)('the ingest queue on %s', (kind) => {
  it('answers each connection in request order while batches overlap, every 201 stored', { timeout: 60_000 }, async () => {
    sac = await startTestSac(kind, SMALL_BATCHES);
    const traffic = (load = agents(sac));
    // Under load from the other agents, so the pipelined requests are spread over several batches in flight.
    await waitFor('load under way', () => traffic.created() >= 20, 30_000);
    const events = Array.from({ length: 40 }, () => buildEvent());
    const answers = await pipelined(sac.url, sac.apiKey, events);
    await traffic.stop();
    expect(answers).toEqual(events.map((e) => ({ status: 201, event_id: e.event_id })));
    for (const e of events) expect(await sac.sac.store.events.byId(e.event_id)).not.toBeNull();
    expect(traffic.answers.filter((a) => a.status !== 201)).toEqual([]);
  });
});

describe('the ingest queue when the ingest thread dies (sqlite file store)', () => {
  it('answers the batches it held 503 with Retry-After and loses nothing it answered 201', { timeout: 90_000 }, async () => {
    // The daemon's worker threads as they are created; the ingest thread is the one answering batches.
    const workers: Worker[] = [];
    const created = ({ worker }: { worker: Worker }) => void workers.push(worker);
    subscribe('worker_threads', created as (message: unknown) => void);
    try {
      sac = await startTestSac('sqlite', SMALL_BATCHES);
    } finally {
      unsubscribe('worker_threads', created as (message: unknown) => void);
    }
    const traffic = (load = agents(sac));
    await waitFor('events stored before the death', () => traffic.created() >= 40, 30_000);
    // The thread is ended the moment it holds two batches it has not answered yet.
    let killed = false;
    for (const worker of workers) {
      const held = new Set<number>();
      const post = worker.postMessage.bind(worker);
      worker.on('message', (msg: FromIngestThread) => {
        if (msg.kind === 'done' || msg.kind === 'failed') held.delete(msg.id);
      });
      worker.postMessage = (msg: ToIngestThread) => {
        post(msg);
        if (msg.kind !== 'batch' || killed) return;
        held.add(msg.id);
        if (held.size >= 2) {
          killed = true;
          void worker.terminate();
        }
      };
    }
    await waitFor('the ingest thread ended', () => killed, 30_000);
    const before = traffic.created();
    await waitFor('events stored by the new ingest thread', () => traffic.created() >= before + 40, 30_000);
    await traffic.stop();

    const lost = traffic.answers.filter((a) => a.status !== 201);
    // At least the batch posted last was lost (the one before may have been answered as the thread ended).
    expect(lost.length).toBeGreaterThan(0);
    for (const a of lost) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toMatch(/^\d+$/);
    }
    for (const a of traffic.answers.filter((x) => x.status === 201)) expect(await sac.sac.store.events.byId(a.event.event_id)).not.toBeNull();
    // The agents re-send what was refused: stored now, or already stored by the dead thread (409).
    for (const a of lost) expect([201, 409]).toContain((await postEvent(sac.url, sac.apiKey, a.event)).status);
    expect(await sac.sac.store.events.count()).toBe(traffic.answers.length);
    expect(sac.logs.some((l) => l.includes('restarting it'))).toBe(true);
  });
});
