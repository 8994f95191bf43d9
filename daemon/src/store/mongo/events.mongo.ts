import type { Db, Filter } from 'mongodb';
import type { Severity } from '../../../../shared/src/index.js';
import { searchTooBroad } from '../../errors.js';
import { foldObservations } from '../host-merge.js';
import type { EventQuery, EventsRepo, InsertOutcome, NewEvent, StoredEvent } from '../events.types.js';
import { MINUTE_MS, type EventDoc } from './event-doc.mongo.js';
import { bucketOf } from '../rollup-fold.js';
import type { MongoMigration } from './mongo-migration.js';
import { mongoDetailLookups } from './detail-lookups.mongo.js';
import { upsertHosts, type HostCache } from './hosts.mongo.js';
import { DUPLICATE_KEY, escapeRegex, hiddenAnd, inParallel, isDuplicateKey, typePatternRegex, writeErrorsOf } from './query.mongo.js';

/**
 * Write errors that reject one document for its content (BadValue: FerretDB refuses keys that
 * start with `$` or contain `.`; DollarPrefixedFieldName, EmptyFieldName, DottedFieldName on older
 * servers); the rest of an unordered insert goes through.
 */
const BAD_DOCUMENT = new Set([2, 52, 56, 57]);

/** Migration 39: the index of `details` lookups by minute (events stored from now on carry `occurred_minute`). */
export const EVENTS_MINUTE_MONGO_MIGRATION: MongoMigration = {
  id: 39,
  name: 'events: occurred minute for time lookups at ingest',
  async up(db: Db) {
    await db.collection('events').createIndexes([{ key: { occurred_minute: 1, type: 1 }, name: 'by_minute_type' }]);
  },
};

/** Migration 61: the indexes of the source country and ASN filters (events stored from now on carry `source_geo`). */
export const EVENTS_GEO_MONGO_MIGRATION: MongoMigration = {
  id: 61,
  name: 'events: source address country and ASN (offline enrichment at ingest)',
  async up(db: Db) {
    await db.collection('events').createIndexes([
      { key: { 'source_geo.country': 1, occurred_ms: -1 }, name: 'by_source_country' },
      { key: { 'source_geo.asn': 1, occurred_ms: -1 }, name: 'by_source_asn' },
    ]);
  },
};

/** A stored event of a document (documents stored before migration 61 have no `source_geo`). */
function storedOf(d: EventDoc): StoredEvent {
  return { ...d, source_geo: d.source_geo ?? null, occurred_at: d.event.occurred_at };
}

/** Widest `details` window looked up minute by minute; a wider one is one range query. */
const DETAILS_MAX_MINUTES = 30;

/** What the repository returns of a stored event: neither the document id nor the lookup minute. */
const STORED_PROJECTION = { _id: 0, occurred_minute: 0 } as const;

export function mongoEvents(db: Db, hostCache: HostCache): EventsRepo {
  const events = db.collection<EventDoc>('events');
  const fingerprints = db.collection<{ _id: string; host_id: string; event_id: string }>('event_fingerprints');
  const flaps = db.collection<{ _id: string; opened_event_id: string; host_id: string }>('rdg_flaps');
  const lookups = mongoDetailLookups(db);

  return {
    async insertBatch(items: NewEvent[], afterInsert) {
      if (items.length === 0) return [];
      const hostIds = await upsertHosts(db, [...foldObservations(items.map((i) => i.host)).values()], hostCache);
      const docs: EventDoc[] = items.map((item) => ({
        event_id: item.event.event_id,
        host_id: hostIds.get(item.host.key)!,
        type: item.event.type,
        severity: item.event.severity,
        occurred_ms: item.occurred_ms,
        received_ms: item.received_ms,
        actor_user: item.actor_user,
        agent_version: item.agent_version,
        source_geo: item.source_geo ?? null,
        event: item.event,
        occurred_minute: Math.floor(item.occurred_ms / MINUTE_MS),
      }));
      const duplicates = new Set<number>();
      const rejected = new Map<number, string>();
      try {
        await events.insertMany(docs, { ordered: false });
      } catch (err) {
        const writeErrors = writeErrorsOf(err);
        // A bulk error without write errors is a lost connection or write concern: nothing is
        // known to be stored, so the batch fails (503) rather than answering 201 for events
        // that may not exist.
        if (writeErrors.length === 0) throw err;
        for (const we of writeErrors) {
          if (we.code === DUPLICATE_KEY) duplicates.add(we.index);
          else if (BAD_DOCUMENT.has(we.code)) rejected.set(we.index, we.errmsg ?? `write error ${we.code}`);
          else throw err;
        }
      }
      const outcomes = docs.map((d, i): InsertOutcome => {
        const reason = rejected.get(i);
        if (reason !== undefined) return { status: 'rejected', reason };
        return duplicates.has(i) ? { status: 'duplicate' } : { status: 'inserted', host_id: d.host_id };
      });
      // Before the batch is correlated: its own gateway events are counterparts too.
      await lookups.record(
        docs.filter((_, i) => outcomes[i].status === 'inserted'),
        Date.now(),
      );
      // No multi-document transactions here (FerretDB has none): the listeners' writes follow the insert.
      if (afterInsert) await afterInsert(outcomes);
      return outcomes;
    },
    async byId(eventId) {
      const doc = await events.findOne({ event_id: eventId.toLowerCase() }, { projection: STORED_PROJECTION });
      return doc ? storedOf(doc) : null;
    },
    async count() {
      return events.countDocuments();
    },
    async setStoredSeverity(updates) {
      await inParallel(updates, (u) => events.updateOne({ event_id: u.event_id }, { $set: { severity: u.severity } }));
    },
    async claimFingerprints(items) {
      if (items.length === 0) return [];
      const claimed = items.map(() => true);
      try {
        await fingerprints.insertMany(
          items.map((i) => ({ _id: i.fp, host_id: i.host_id, event_id: i.event_id })),
          { ordered: false },
        );
      } catch (err) {
        const errors = writeErrorsOf(err);
        if (errors.length === 0) throw err;
        for (const e of errors) {
          if (e.code !== DUPLICATE_KEY) throw err;
          claimed[e.index] = false;
        }
      }
      return claimed;
    },
    async markFlap(closedEventId, openedEventId, hostId) {
      try {
        await flaps.insertOne({ _id: closedEventId, opened_event_id: openedEventId, host_id: hostId });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async flapMarked(eventIds) {
      if (eventIds.length === 0) return new Set();
      const docs = await flaps.find({ $or: [{ _id: { $in: eventIds } }, { opened_event_id: { $in: eventIds } }] }).toArray();
      const wanted = new Set(eventIds);
      return new Set(docs.flatMap((d) => [d._id, d.opened_event_id]).filter((id) => wanted.has(id)));
    },
    async search(q: EventQuery) {
      const and = searchFilter(q, true);
      const dir = q.order === 'asc' ? 1 : -1;
      const cursor = events
        .find(and.length ? { $and: and } : {}, { projection: STORED_PROJECTION })
        .sort({ occurred_ms: dir, event_id: dir })
        .limit(q.limit);
      // The server stops the scan when the budget is spent (MaxTimeMSExpired, code 50).
      if (q.budget_ms !== undefined) cursor.maxTimeMS(q.budget_ms);
      let docs: EventDoc[];
      try {
        docs = await cursor.toArray();
      } catch (err) {
        if ((err as { code?: unknown }).code === 50) throw searchTooBroad();
        throw err;
      }
      return docs.map(storedOf);
    },
    async countMatching(q: EventQuery) {
      const and = searchFilter(q, false);
      return events.countDocuments(and.length ? { $and: and } : {});
    },
    async sourceCounts(q) {
      if (q.types.length === 0) return { countries: [], asns: [] };
      const match = { type: { $in: q.types }, occurred_ms: { $gte: q.from_ms, $lt: q.to_ms }, ...(q.host_ids ? { host_id: { $in: [...q.host_ids] } } : {}) };
      // FerretDB has no $first/$max accumulators: an AS's name is part of its group key, and the
      // groups of one AS (a name changed between databases) are added up here.
      const grouped = <K>(field: 'country' | 'asn') =>
        events
          .aggregate<{ _id: K; count: number }>([
            { $match: { ...match, [`source_geo.${field}`]: { $ne: null } } },
            { $group: { _id: field === 'asn' ? { asn: '$source_geo.asn', as_org: '$source_geo.as_org' } : '$source_geo.country', count: { $sum: 1 } } },
          ])
          .toArray();
      const [countries, asnGroups] = await Promise.all([grouped<string>('country'), grouped<{ asn: number; as_org: string | null }>('asn')]);
      const asns = new Map<number, { asn: number; as_org: string | null; count: number }>();
      for (const g of asnGroups) {
        const a = asns.get(g._id.asn) ?? { asn: g._id.asn, as_org: g._id.as_org ?? null, count: 0 };
        a.count += g.count;
        asns.set(a.asn, a);
      }
      const largest = <T extends { count: number }>(rows: T[], key: (r: T) => string | number, limit: number) =>
        rows.sort((x, y) => y.count - x.count || (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0)).slice(0, limit);
      return {
        countries: largest(countries.map((c) => ({ country: c._id, count: c.count })), (c) => c.country, q.limits.countries),
        asns: largest([...asns.values()], (a) => a.asn, q.limits.asns),
      };
    },
    async severityHours(q) {
      if (q.host_ids.length === 0) return [];
      const match: Filter<EventDoc> = { $and: [{ host_id: { $in: [...q.host_ids] }, occurred_ms: { $gte: q.from_ms, $lt: q.to_ms } }, ...(hiddenAnd(q.hidden) as Filter<EventDoc>[])] };
      // FerretDB groups by fields, not computed values: per minute (kept with each event since migration 39), folded into hours here.
      const minutes = await events
        .aggregate<{ _id: { minute?: number | null; severity: Severity }; n: number }>([
          { $match: match },
          { $group: { _id: { minute: '$occurred_minute', severity: '$severity' }, n: { $sum: 1 } } },
        ])
        .toArray();
      const hours = new Map<string, { bucket_ms: number; severity: Severity; n: number }>();
      const add = (ms: number, severity: Severity, n: number) => {
        const bucket_ms = bucketOf(ms);
        const row = hours.get(`${bucket_ms}|${severity}`) ?? { bucket_ms, severity, n: 0 };
        row.n += n;
        hours.set(`${bucket_ms}|${severity}`, row);
      };
      for (const m of minutes) if (m._id.minute != null) add(m._id.minute * MINUTE_MS, m._id.severity, m.n);
      // Events stored before migration 39 carry no minute: read one by one.
      if (minutes.some((m) => m._id.minute == null)) {
        const old = await events.find({ $and: [match, { occurred_minute: { $exists: false } }] }, { projection: { _id: 0, occurred_ms: 1, severity: 1 } }).toArray();
        for (const e of old) add(e.occurred_ms, e.severity, 1);
      }
      return [...hours.values()];
    },
    async details(q) {
      if (q.host_ids.length === 0 || q.types.length === 0 || q.to_ms <= q.from_ms) return [];
      if (lookups.covers(q, Date.now())) return lookups.find(q);
      const projection: Record<string, 0 | 1> = { _id: 0, event_id: 1, host_id: 1, type: 1, occurred_ms: 1 };
      for (const k of q.keys) projection[`event.details.${k}`] = 1;
      const first = Math.floor(q.from_ms / MINUTE_MS);
      const last = Math.floor((q.to_ms - 1) / MINUTE_MS);
      let docs: EventDoc[];
      if (last - first < DETAILS_MAX_MINUTES) {
        // Ingest's lookups span seconds: one equality query per type and minute, which FerretDB
        // hands to PostgreSQL, instead of one with `$in` and a range, which it answers by reading
        // every stored event. The hosts and exact times are filtered here.
        const hosts = new Set(q.host_ids);
        const lookups = q.types.flatMap((type) => Array.from({ length: last - first + 1 }, (_, i) => ({ type, occurred_minute: first + i })));
        const found = await Promise.all(lookups.map((filter) => events.find(filter, { projection }).toArray()));
        docs = found
          .flat()
          .filter((d) => hosts.has(d.host_id) && d.occurred_ms >= q.from_ms && d.occurred_ms < q.to_ms)
          .sort((a, b) => b.occurred_ms - a.occurred_ms || (b.event_id < a.event_id ? -1 : b.event_id > a.event_id ? 1 : 0))
          .slice(0, q.limit);
      } else {
        docs = await events
          .find({ host_id: { $in: q.host_ids }, type: { $in: q.types }, occurred_ms: { $gte: q.from_ms, $lt: q.to_ms } }, { projection })
          .sort({ occurred_ms: -1, event_id: -1 })
          .limit(q.limit)
          .toArray();
      }
      return docs.map((d) => ({
        event_id: d.event_id,
        host_id: d.host_id,
        type: d.type,
        occurred_ms: d.occurred_ms,
        details: { ...(d.event?.details ?? {}) },
      }));
    },
    async prune(beforeMs, limit) {
      const ids = (await events.find({ occurred_ms: { $lt: beforeMs } }, { projection: { _id: 0, event_id: 1 } }).sort({ occurred_ms: 1 }).limit(limit).toArray()).map(
        (d) => d.event_id,
      );
      if (ids.length === 0) return 0;
      await flaps.deleteMany({ _id: { $in: ids } });
      return (await events.deleteMany({ event_id: { $in: ids } })).deletedCount;
    },
  };
}

/** Filter terms of an event search; `withCursor` adds the keyset position of `after` in the query's order. */
function searchFilter(q: EventQuery, withCursor: boolean): Filter<EventDoc>[] {
  const and: Filter<EventDoc>[] = [];
  if (q.event_ids) and.push({ event_id: { $in: q.event_ids } });
  if (q.host_ids) and.push({ host_id: { $in: q.host_ids } });
  if (q.severities?.length) and.push({ severity: { $in: q.severities } });
  if (q.type_prefix) and.push({ type: typePatternRegex(q.type_prefix) });
  if (q.types) and.push({ type: { $in: q.types } });
  if (q.from_ms !== undefined) and.push({ occurred_ms: { $gte: q.from_ms } });
  if (q.to_ms !== undefined) and.push({ occurred_ms: { $lt: q.to_ms } });
  if (q.q) {
    const re = new RegExp(escapeRegex(q.q), 'i');
    and.push({ $or: [{ 'event.title': re }, { 'event.summary': re }] });
  }
  if (q.actor !== undefined) and.push({ actor_user: new RegExp(q.actor_exact ? `^${escapeRegex(q.actor)}$` : escapeRegex(q.actor), 'i') });
  if (q.country !== undefined) and.push({ 'source_geo.country': q.country } as Filter<EventDoc>);
  if (q.asn !== undefined) and.push({ 'source_geo.asn': q.asn } as Filter<EventDoc>);
  if (q.ip !== undefined) and.push({ $or: IP_FIELDS.map((f) => ({ [f]: q.ip })) } as Filter<EventDoc>);
  and.push(...(hiddenAnd(q.hidden) as Filter<EventDoc>[]));
  if (withCursor && q.after) {
    const op = q.order === 'asc' ? '$gt' : '$lt';
    and.push({
      $or: [{ occurred_ms: { [op]: q.after.occurred_ms } }, { occurred_ms: q.after.occurred_ms, event_id: { [op]: q.after.event_id } }],
    } as Filter<EventDoc>);
  }
  return and;
}

/** Where the agents put the remote address of an event. */
const IP_FIELDS = ['event.details.ip_address', 'event.details.source_ip', 'event.details.external_ip'];
