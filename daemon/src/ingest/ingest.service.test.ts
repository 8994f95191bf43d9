import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseEvent, type Event } from '../../../shared/src/index.js';
import { buildEvent } from '../../../test/helpers/events.js';
import { systemClock } from '../clock.js';
import { AppError } from '../errors.js';
import type { InsertOutcome, NewEvent } from '../store/index.js';
import type { BatchCommitter } from './batch-committer.js';
import { IngestService } from './ingest.service.js';

const POISON = 'poison';

/**
 * A committer that stores everything unless a batch holds an event titled `poison`: then it throws
 * `fault` (what a serializer would), or for `outage` what a store that is down throws. Records the
 * size of each batch it was handed.
 */
function committer(fault: () => Error): BatchCommitter & { batches: number[] } {
  const batches: number[] = [];
  return {
    batches,
    problem: null,
    async commit(items: NewEvent[]): Promise<InsertOutcome[]> {
      batches.push(items.length);
      if (items.some((i) => i.event.title === POISON)) throw fault();
      return items.map(() => ({ status: 'inserted', host_id: 'h1' }));
    },
    async close() {},
  };
}

function event(title: string): Event {
  const parsed = parseEvent(buildEvent({ title }));
  if (!parsed.ok) throw new Error('invalid');
  return parsed.event;
}

async function submitTogether(service: IngestService, titles: string[]) {
  const ctx = { keyPrefix: 'sac_test', requestId: 'r' };
  // Submitted in one turn of the event loop, so they share one batch.
  return Promise.allSettled(titles.map((t) => service.submit(event(t), ctx)));
}

const codeOf = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? r.value : (r.reason as AppError).code);

describe('IngestService: a poisonous event in a batch', () => {
  it('refuses only the event whose content fails (422), storing the rest of its batch', async () => {
    const c = committer(() => new RangeError('Maximum call stack size exceeded'));
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    const results = await submitTogether(service, ['a', 'b', POISON, 'c']);
    expect(results.map(codeOf)).toEqual(['created', 'created', 'event/unprocessable', 'created']);
    // One batch of four, then each event alone.
    expect(c.batches).toEqual([4, 1, 1, 1, 1]);
  });

  it('answers a lone poisonous event 422 without retrying it', async () => {
    const c = committer(() => Object.assign(new Error('could not be cloned'), { name: 'DataCloneError' }));
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    expect((await submitTogether(service, [POISON])).map(codeOf)).toEqual(['event/unprocessable']);
    expect(c.batches).toEqual([1]);
  });

  it('fails the whole batch with 503 when the store is down, without retrying event by event', async () => {
    const c = committer(() => new Error('connection refused'));
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    const results = await submitTogether(service, ['a', POISON, 'b']);
    expect(results.map(codeOf)).toEqual(['store/unavailable', 'store/unavailable', 'store/unavailable']);
    expect(c.batches).toEqual([3]);
  });

  it('answers an event the store rejects by content 422 and its batch 201', async () => {
    const c: BatchCommitter = {
      problem: null,
      async commit(items) {
        return items.map((i): InsertOutcome =>
          i.event.title === POISON ? { status: 'rejected', reason: 'invalid key' } : { status: 'inserted', host_id: 'h1' },
        );
      },
      async close() {},
    };
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    expect((await submitTogether(service, ['a', POISON, 'b'])).map(codeOf)).toEqual(['created', 'event/unprocessable', 'created']);
  });
});

describe('IngestService: answering a batch', () => {
  it('answers a large batch in slices, so work arriving meanwhile runs between them, and in order', async () => {
    const c = committer(() => new Error('unused'));
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 500, queueLimit: 1000 });
    const ctx = { keyPrefix: 'sac_test', requestId: 'r' };
    const order: string[] = [];
    const all = Array.from({ length: 300 }, (_, i) => service.submit(event(`e${i}`), ctx).then(() => void order.push(`answer ${i}`)));
    // Work that arrives once the batch is committed (a turn of the loop after the commit resolves).
    void c.commit([]).then(() => setImmediate(() => order.push('other work')));
    await Promise.all(all);
    expect(c.batches.filter((n) => n > 0)).toEqual([300]);
    const other = order.indexOf('other work');
    // Answered in submission order, and not all of them before the other work got its turn.
    expect(order.filter((o) => o !== 'other work')).toEqual(Array.from({ length: 300 }, (_, i) => `answer ${i}`));
    expect(other).toBeGreaterThan(0);
    expect(other).toBeLessThan(300);
  });
});

describe('IngestService: what /health reports', () => {
  /** A committer failing every batch with what `fail` returns; its own problem is settable. */
  function failing(fail: () => Error) {
    return { problem: null as string | null, commit: async (): Promise<InsertOutcome[]> => Promise.reject(fail()), async close() {} };
  }
  const diskFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
  const threadLost = () => new AppError('ingest/thread_lost', 'the ingest thread exited (code 1)', { kind: 'unexpected' });

  it('keeps the disk reason while the ingest thread is replaced, and reports the restart alone when the store gave none', async () => {
    let fault = diskFull;
    const c = failing(() => fault());
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    expect((await submitTogether(service, ['a'])).map(codeOf)).toEqual(['store/unavailable']);
    expect(service.problem).toBe("events cannot be stored: the store's disk is full");
    c.problem = 'the ingest thread is restarting';
    fault = threadLost;
    expect((await submitTogether(service, ['b'])).map(codeOf)).toEqual(['store/unavailable']);
    expect(service.problem).toBe("events cannot be stored: the store's disk is full");

    const fresh = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    expect((await submitTogether(fresh, ['c'])).map(codeOf)).toEqual(['store/unavailable']);
    expect(fresh.problem).toBe('the ingest thread is restarting');
  });
});

describe('IngestService: a commit that never settles', () => {
  it('answers its batch 503 at the deadline, reports the store as not answering, and answers the batches after it', async () => {
    let calls = 0;
    const c: BatchCommitter = {
      problem: null,
      // The first batch hangs for good (a write to a socket the server dropped); later ones are stored.
      commit: (items: NewEvent[]) => (++calls === 1 ? new Promise<InsertOutcome[]>(() => {}) : Promise.resolve(items.map(() => ({ status: 'inserted' as const, host_id: 'h1' })))),
      async close() {},
    };
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000, commitDeadlineMs: 50 });
    const first = submitTogether(service, ['a', 'b']);
    expect((await first).map(codeOf)).toEqual(['store/unavailable', 'store/unavailable']);
    expect(service.problem).toBe('events cannot be stored: the store does not answer');
    expect((await submitTogether(service, ['c'])).map(codeOf)).toEqual(['created']);
    expect(service.problem).toBeNull();
  });
});

describe('IngestService: overlapping batches', () => {
  /** A committer that holds each batch until the test lets it land, in any order. */
  function held() {
    const batches: { titles: string[]; land: () => void }[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const c: BatchCommitter = {
      problem: null,
      commit(items: NewEvent[]) {
        return new Promise<InsertOutcome[]>((resolve) => {
          batches.push({ titles: items.map((i) => i.event.title), land: () => resolve(items.map(() => ({ status: 'inserted', host_id: 'h1' }))) });
          for (const w of waiters.filter((x) => x.count <= batches.length)) w.resolve();
        });
      },
      async close() {},
    };
    /** Resolves once `count` batches have been handed to the committer. */
    const handed = (count: number) => new Promise<void>((resolve) => (batches.length >= count ? resolve() : waiters.push({ count, resolve })));
    return { c, batches, handed };
  }
  const ctx = { keyPrefix: 'sac_test', requestId: 'r' };

  it('hands the next batch to the committer as soon as a commit lands, before earlier batches are answered, and answers in batch order', async () => {
    const { c, batches, handed } = held();
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 1000 });
    const answered: string[] = [];
    const submit = (t: string) => service.submit(event(t), ctx).then(() => void answered.push(t));
    const all = [submit('a'), submit('b')];
    await handed(1);
    all.push(submit('c'));
    await handed(2);
    all.push(submit('d'));
    // The second commit lands first: its slot takes the waiting event at once, while the first
    // batch is still being written and nothing has been answered.
    batches[1].land();
    await handed(3);
    expect(batches.map((b) => b.titles)).toEqual([['a', 'b'], ['c'], ['d']]);
    expect(answered).toEqual([]);
    batches[2].land();
    batches[0].land();
    await Promise.all(all);
    expect(answered).toEqual(['a', 'b', 'c', 'd']);
  });

  it('counts the events of batches at the committer against the queue limit and refuses past it at once', async () => {
    const { c, batches, handed } = held();
    const service = new IngestService(c, { ...systemClock, now: () => 0 }, pino({ level: 'silent' }), { batchMax: 100, queueLimit: 3 });
    const first = [service.submit(event('a'), ctx), service.submit(event('b'), ctx)];
    await handed(1);
    const second = service.submit(event('c'), ctx);
    await handed(2);
    expect(service.queued).toBe(3);
    await expect(service.submit(event('d'), ctx)).rejects.toMatchObject({ code: 'ingest/overloaded' });
    for (const b of batches) b.land();
    expect(await Promise.all([...first, second])).toEqual(['created', 'created', 'created']);
    await service.drain();
    expect(service.queued).toBe(0);
  });
});
