import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../shared/src/index.js';
import { buildEvent } from '../../../test/helpers/events.js';
import { systemClock } from '../clock.js';
import { DEFAULT_CROSS_HOST_RULES } from '../correlation/index.js';
import { Facts, type DomainFact } from '../facts.js';
import type { NewEvent } from '../store/index.js';
import { isEventFault } from '../errors.js';
import { IngestThread } from './ingest-thread.js';
import { actorUser, hostObservation } from './ingest.rules.js';
import { applyBatchEffects } from './pipeline.js';

/**
 * A stand-in ingest thread speaking the real protocol: every event "inserted" on host `h1`, one
 * fact and one log line per batch; an event whose id is `crash` kills the thread, one whose
 * id is `unstorable` fails its batch as the thread does when an event's content cannot be written.
 */
const STAND_IN = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (msg) => {
  if (msg.kind === 'close') { parentPort.postMessage({ kind: 'closed' }); process.exit(0); }
  if (msg.items.some((i) => i.event.event_id === 'crash')) process.exit(3);
  if (msg.items.some((i) => i.event.event_id === 'unstorable')) {
    parentPort.postMessage({ kind: 'failed', id: msg.id, error: 'Maximum call stack size exceeded', eventFault: true, logs: [] });
    return;
  }
  parentPort.postMessage({
    kind: 'done', id: msg.id, outcomes: msg.items.map(() => ({ status: 'inserted', host_id: 'h1' })),
    effects: {
      facts: [{ type: 'host.status_changed', host_id: 'h1', hostname: 'batch-' + msg.id, status: msg.context.now_ms > 0 ? 'online' : 'stale' }],
      logs: [{ scope: 'ingest', level: 'info', msg: 'batch stored', fields: { n: msg.items.length } }],
      notificationsRecorded: 0, notificationsLost: 0,
    },
  });
});
parentPort.postMessage({ kind: 'ready' });
`;

const item = (id: string) => ({ event: { event_id: id } }) as unknown as NewEvent;

function harness(spawn: 'stand-in' | 'real' = 'stand-in') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const published: unknown[] = [];
  const facts = new Facts(() => undefined);
  facts.subscribe((batch, origin) => void published.push({ batch, origin }));
  const logger = pino({ level: 'info' }, sink);
  let restarts = 0;
  let spawned = 0;
  const start = (file = 'unused') =>
    IngestThread.start(
      {
        file,
        clock: systemClock,
        logger,
        context: async () => ({
          now_ms: 1_000,
          correlation: { windowMinutes: 30, severityOverrides: {}, hiddenTypes: [], staleMinutes: 10, staleMinutesByProduct: {}, silenceCooldownMinutes: 720, crossHost: DEFAULT_CROSS_HOST_RULES, typeProblems: {}, adminUsers: new Set() },
          notify: null,
        }),
        apply: (effects) => applyBatchEffects(effects, { facts, logger, onNotificationsRecorded: () => undefined, onNotificationsLost: () => undefined }),
        onRestart: () => restarts++,
      },
      spawn === 'real'
        ? undefined
        : () => {
            spawned++;
            return new Worker(STAND_IN, { eval: true });
          },
    );
  return { start, lines, published, restarts: () => restarts, spawned: () => spawned };
}

describe('IngestThread', () => {
  it('sends a batch with its context and applies its effects (facts, log records) before resolving it', async () => {
    const h = harness();
    const thread = await h.start();
    expect(await thread.commit([item('a'), item('b')])).toEqual([
      { status: 'inserted', host_id: 'h1' },
      { status: 'inserted', host_id: 'h1' },
    ]);
    // The stored events stay on the thread: the committed-events fact is rebuilt here from the batch's items.
    expect(h.published).toEqual([
      {
        batch: [
          { type: 'events.committed', events: [{ ...item('a'), host_id: 'h1' }, { ...item('b'), host_id: 'h1' }] },
          { type: 'host.status_changed', host_id: 'h1', hostname: 'batch-1', status: 'online' },
        ],
        origin: 'ingest',
      },
    ]);
    expect(h.lines).toContainEqual(expect.objectContaining({ msg: 'batch stored', scope: 'ingest', n: 2 }));
    await thread.close();
  });

  it('tells a batch refused for an event\'s content from a failure of the thread, and keeps the thread', async () => {
    const h = harness();
    const thread = await h.start();
    await expect(thread.commit([item('a'), item('unstorable')])).rejects.toMatchObject({ code: 'event/unprocessable' });
    // Too deep to be cloned to the thread: refused here, as an event fault, before it is posted.
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const cloneFailure = await thread.commit([{ event: { event_id: 'deep', details: deep } } as unknown as NewEvent]).catch((err: unknown) => err);
    expect(isEventFault(cloneFailure)).toBe(true);
    expect(await thread.commit([item('b')])).toEqual([{ status: 'inserted', host_id: 'h1' }]);
    expect(h.spawned()).toBe(1);
    await thread.close();
  });

  it('fails the batches of a dead thread, reports it on health, and goes on with a new thread', async () => {
    const h = harness();
    const thread = await h.start();
    expect(thread.problem).toBeNull();
    await expect(thread.commit([item('crash')])).rejects.toMatchObject({ code: 'ingest/thread_lost' });
    expect(thread.problem).toBe('the ingest thread is restarting');
    expect(h.restarts()).toBe(1);
    // A batch submitted during the restart waits for the new thread instead of failing.
    expect(await thread.commit([item('after')])).toEqual([{ status: 'inserted', host_id: 'h1' }]);
    expect(thread.problem).toBeNull();
    expect(h.spawned()).toBe(2);
    expect(h.lines).toContainEqual(expect.objectContaining({ msg: 'the ingest thread exited (code 3); restarting it' }));
    expect(h.lines).toContainEqual(expect.objectContaining({ msg: 'ingest thread restarted' }));
    await thread.close();
    await expect(thread.commit([item('late')])).rejects.toMatchObject({ code: 'ingest/thread_failed' });
  });
});

/** A valid event as ingest hands it to the thread. */
function newEvent(receivedMs: number): NewEvent {
  const parsed = parseEvent(buildEvent());
  if (!parsed.ok) throw new Error('invalid test event');
  const event = parsed.event;
  return {
    event,
    host: hostObservation(event, receivedMs),
    occurred_ms: Date.parse(event.occurred_at),
    received_ms: receivedMs,
    actor_user: actorUser(event),
    agent_version: event.source.product_version,
  };
}

describe('IngestThread on the real ingest thread and store', () => {
  it('keeps the thread when a batch fails while the batch before it is still syncing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sac-ingest-thread-'));
    const h = harness('real');
    const thread = await h.start(path.join(dir, 'sac.db'));
    try {
      // Posted together: the second fails on the store's write (no host observation, as a full
      // disk fails a commit) while the first still waits for the sync of its WAL.
      const stored = [newEvent(1_000), newEvent(2_000)];
      const first = thread.commit([stored[0]]);
      const second = thread.commit([{ ...newEvent(1_000), host: undefined } as unknown as NewEvent]);
      await expect(first).resolves.toEqual([{ status: 'inserted', host_id: expect.any(String) }]);
      await expect(second).rejects.toMatchObject({ code: 'ingest/thread_failed', message: expect.not.stringMatching(/ingest thread (failed|exited)/) });
      const [third] = await thread.commit([stored[1]]);
      expect(third).toEqual({ status: 'inserted', host_id: expect.any(String) });
      expect([h.restarts(), thread.problem]).toEqual([0, null]);
      // Each stored batch's facts begin with its events, with the host the thread linked them to.
      const committed = (h.published as { batch: DomainFact[] }[]).map(({ batch }) => batch[0]);
      expect(committed).toEqual(stored.map((e) => ({ type: 'events.committed', events: [{ ...e, host_id: (third as { host_id: string }).host_id }] })));
    } finally {
      await thread.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
