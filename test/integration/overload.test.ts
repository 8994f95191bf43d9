import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/src/index.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

/**
 * Six times the queue. Not more: every refused event is re-sent and stored one commit at a time,
 * and 190 of those took more than the test's 30 s on FerretDB beside two busy processes.
 */
const BURST = 50;
/** Bursts sent at most until one is refused in part. */
const MAX_BURSTS = 8;

/**
 * A burst well over a deliberately tiny ingest queue (8 events, one event per commit): the
 * excess is refused with 503 + Retry-After — never 200 or 500 — and every event that got its 201
 * is stored; the refused ones land when re-sent, as the agent's spool does. (How fast refusals
 * come back under load is measured by bench:ingest's overload phase.)
 */
describe.each(STORE_KINDS)('ingest overload on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_INGEST_QUEUE_LIMIT: '8', SAC_INGEST_BATCH_MAX: '1' });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('refuses the excess with 503 and Retry-After quickly and loses no acknowledged event', async () => {
    // Whether a burst outruns the one-event commits depends on how the machine schedules the
    // requests and the commits: bursts are sent until one did, a few at most. Every answer of
    // every burst is checked.
    const results: { event: EventInput; res: Awaited<ReturnType<typeof postEvent>> }[] = [];
    for (let burst = 0; burst < MAX_BURSTS && !results.some((r) => r.res.status === 503); burst++) {
      const events = Array.from({ length: BURST }, () => buildEvent());
      results.push(...(await Promise.all(events.map(async (event) => ({ event, res: await postEvent(sac.url, sac.apiKey, event) })))));
    }
    const created = results.filter((r) => r.res.status === 201);
    const refused = results.filter((r) => r.res.status === 503);
    expect(created.length + refused.length).toBe(results.length);
    expect(refused.length).toBeGreaterThan(0);
    expect(created.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(r.res.body.error.code).toBe('ingest/overloaded');
    }
    for (const r of created) expect(await sac.sac.store.events.byId(r.event.event_id)).not.toBeNull();

    const retried: EventInput[] = refused.map((r) => r.event);
    for (const event of retried) expect((await postEvent(sac.url, sac.apiKey, event)).status).toBe(201);
    expect(await sac.sac.store.events.count()).toBe(results.length);
  });
});
