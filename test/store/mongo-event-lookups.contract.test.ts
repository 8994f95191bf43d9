import type { Db } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { EVENT_LOOKUPS_MONGO_MIGRATION, mongoDetailLookups } from '../../daemon/src/store/mongo/detail-lookups.mongo.js';
import type { EventDoc } from '../../daemon/src/store/mongo/event-doc.mongo.js';
import { waitFor } from '../helpers/clock.js';
import { buildEvent } from '../helpers/events.js';
import { freshMongoDbPerTest } from '../helpers/stores.js';

const MIN = 60_000;

function gatewayEvent(receivedMs: number, type = 'rdg.connection.success'): EventDoc {
  const parsed = parseEvent(buildEvent({ host: { hostname: 'GW01' }, type, severity: 'info', occurred_at: new Date(receivedMs).toISOString(), details: { user: 'CORP\\anna', protocol: 'HTTP' } }));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const { event } = parsed;
  return { event_id: event.event_id, host_id: 'h1', type, severity: 'info', occurred_ms: receivedMs, received_ms: receivedMs, actor_user: null, agent_version: '1', event };
}

/** The MongoDB adapter's lookup collection of recent gateway events (FerretDB). */
describe('MongoDB event lookups (FerretDB)', () => {
  const databases = freshMongoDbPerTest('sac_lookups');
  let db: Db;
  beforeEach(() => {
    db = databases.db();
  });

  it('keeps only the lookup types and fields, and prunes what was received over ten minutes ago', async () => {
    const lookups = mongoDetailLookups(db);
    const now = Date.now();
    const old = [gatewayEvent(now - 25 * MIN), gatewayEvent(now - 12 * MIN, 'rdg.connection.failed')];
    const recent = [gatewayEvent(now - 9 * MIN), gatewayEvent(now - 1000, 'rdg.connection.disconnected')];
    const other = { ...gatewayEvent(now - 1000), type: 'rdp.login.failed' };
    // Recorded with their own receipt times: the prune that runs with the first one keeps them all.
    await lookups.record([...old, ...recent, other], now - 25 * MIN);
    const stored = db.collection<{ _id: string; details: Record<string, unknown> }>('event_lookups');
    expect(await stored.countDocuments()).toBe(4);
    expect((await stored.findOne({ _id: recent[1].event_id }))?.details).toEqual({ user: 'CORP\\anna' });
    // Later batches' records prune in the background, at most one prune at a time, every 10 s.
    // Each look records a later batch: a prune starts whenever the last one has ended.
    let batches = 0;
    await waitFor('the background prune', async () => {
      await lookups.record([], now + batches++ * 10_000);
      return (await stored.countDocuments()) <= 2;
    });
    expect((await stored.find({}).toArray()).map((d) => d._id).sort()).toEqual(recent.map((e) => e.event_id).sort());
  });

  it('migration 44 indexes the buckets and fills the collection with the gateway events received within ten minutes', async () => {
    const now = Date.now();
    const recent = gatewayEvent(now - 2 * MIN, 'rdg.connection.disconnected');
    await db.collection<EventDoc>('events').insertMany([gatewayEvent(now - 30 * MIN), recent, { ...gatewayEvent(now - MIN), type: 'rdp.login.failed' }]);
    await EVENT_LOOKUPS_MONGO_MIGRATION.up(db);
    expect((await db.collection('event_lookups').indexes()).map((i) => i.name)).toEqual(expect.arrayContaining(['by_bucket', 'by_received_bucket']));
    expect(await db.collection('event_lookups').find({}).toArray()).toEqual([
      { _id: recent.event_id, host_id: 'h1', type: 'rdg.connection.disconnected', occurred_ms: recent.occurred_ms, b: Math.floor(recent.occurred_ms / 10_000), rb: Math.floor(recent.received_ms / MIN), details: { user: 'CORP\\anna' } },
    ]);
  });
});
