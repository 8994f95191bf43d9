import { MongoServerError, type Db, type Filter } from 'mongodb';
import type { NotifyChannel as Channel } from '../../../../shared/src/index.js';
import type { DailyReportListItem, DailyReportRecord, OutboxRecord, OutboxRepo, PushRepo, PushSubscriptionRecord, PushUpsert, ReportsRepo } from '../notify.types.js';
import type { StoredEvent } from '../events.types.js';
import { OUTBOX_HISTORY_LIMIT } from '../sqlite/notify.sqlite.js';
import { withLock } from './locks.mongo.js';
import { retryGrant } from '../outbox-rules.js';

const DUPLICATE_KEY = 11000;
const NO_ID = { projection: { _id: 0 } } as const;

/** FerretDB's findAndModify takes no projection: `_id` is dropped here instead. */
function withoutId<T extends object>(doc: T | null): Omit<T, '_id'> | null {
  if (!doc) return null;
  const { _id, ...rest } = doc as T & { _id?: unknown };
  return rest;
}

export function mongoOutbox(db: Db): OutboxRepo {
  const outbox = db.collection<OutboxRecord>('outbox');
  return {
    async insertMany(records) {
      if (records.length === 0) return;
      // Copies: the driver adds `_id` to the documents it is given.
      await outbox.insertMany(records.map((r) => ({ ...r })), { ordered: false });
    },
    async claimDue(channel, nowMs, limit, leaseUntilMs) {
      // FerretDB applies even a filtered findOneAndUpdate as read-then-write, so two daemons could
      // both take a row: claims of one channel are serialised under a store lock instead.
      return withLock(db, `outbox:${channel}`, async () => {
        const due = await outbox
          .find(
            {
              channel,
              $or: [
                { status: 'pending', next_attempt_ms: { $lte: nowMs } },
                { status: 'sending', lease_until_ms: { $lt: nowMs } },
              ],
            },
            NO_ID,
          )
          .sort({ next_attempt_ms: 1 })
          .limit(limit)
          .toArray();
        if (due.length === 0) return [];
        await outbox.updateMany(
          { id: { $in: due.map((r) => r.id) } },
          { $set: { status: 'sending', lease_until_ms: leaseUntilMs, updated_ms: nowMs } },
        );
        return due.map((r) => ({ ...r, status: 'sending' as const, lease_until_ms: leaseUntilMs, updated_ms: nowMs }));
      });
    },
    async recordAttempt(id, r) {
      // Only the daemon holding the row's lease writes it, so read-modify-write is safe here (and
      // FerretDB 1.24 ignores `$slice` in `$push`).
      const row = await outbox.findOne({ id }, NO_ID);
      if (!row) return;
      await outbox.updateOne(
        { id },
        {
          $set: {
            status: r.status,
            attempts: row.attempts + 1,
            next_attempt_ms: r.next_attempt_ms,
            last_error: r.last_error,
            lease_until_ms: null,
            updated_ms: r.attempt.at_ms,
            sent_ms: r.status === 'sent' ? r.attempt.at_ms : null,
            history: [...row.history, r.attempt].slice(-OUTBOX_HISTORY_LIMIT),
          },
        },
      );
    },
    async byId(id) {
      return outbox.findOne({ id }, NO_ID);
    },
    async countPending() {
      return outbox.countDocuments({ status: 'pending' });
    },
    async list(f) {
      const q: Filter<OutboxRecord> = {};
      if (f.status) q.status = f.status;
      if (f.channel) q.channel = f.channel;
      if (f.topic) q.topic = f.topic;
      if (f.before_ms !== undefined) q.created_ms = { $lt: f.before_ms };
      return outbox.find(q, NO_ID).sort({ created_ms: -1, id: 1 }).limit(f.limit).toArray();
    },
    async retryNow(id, nowMs) {
      const row = await outbox.findOne({ id }, NO_ID);
      const grant = row && retryGrant(row, nowMs);
      if (!grant) return null;
      return withoutId(
        await outbox.findOneAndUpdate({ id, status: { $in: ['pending', 'failed'] } }, { $set: grant }, { returnDocument: 'after' }),
      );
    },
    async carriers(topic, ref) {
      return (await outbox.distinct('channel', { topic, ref, status: { $nin: ['failed', 'suppressed'] } })) as Channel[];
    },
    async prune(beforeMs) {
      return (await outbox.deleteMany({ created_ms: { $lt: beforeMs }, status: { $in: ['sent', 'failed', 'suppressed'] } })).deletedCount;
    },
  };
}

export function mongoPush(db: Db): PushRepo {
  const subs = db.collection<PushSubscriptionRecord>('push_subscriptions');
  const vapid = db.collection<{ _id: string; public_key: string; private_key: string }>('push_vapid');
  return {
    async upsert(r, maxPerUser) {
      // The user's lock bounds their count; the endpoint's lock keeps two users from claiming one endpoint.
      // Always taken in this order (user, then endpoint), so waiting for the second cannot deadlock.
      return withLock(db, `push-user:${r.user_id ?? ''}`, () =>
        withLock(db, `push:${r.endpoint}`, async (): Promise<PushUpsert> => {
          const existing = await subs.findOne({ endpoint: r.endpoint }, NO_ID);
          if (existing && existing.user_id !== r.user_id) return { status: 'other_user' };
          if (!existing && (await subs.countDocuments({ user_id: r.user_id })) >= maxPerUser) return { status: 'limit' };
          await subs.updateOne(
            { endpoint: r.endpoint },
            { $set: { p256dh: r.p256dh, auth: r.auth, label: r.label }, $setOnInsert: { id: r.id, created_ms: r.created_ms, user_id: r.user_id } },
            { upsert: true },
          );
          return { status: 'ok', record: (await subs.findOne({ endpoint: r.endpoint }, NO_ID))! };
        }),
      );
    },
    async removeByUser(userId) {
      return (await subs.deleteMany({ user_id: userId })).deletedCount;
    },
    async list() {
      return subs.find({}, NO_ID).sort({ created_ms: 1 }).toArray();
    },
    async byId(id) {
      return subs.findOne({ id }, NO_ID);
    },
    async remove(id) {
      return (await subs.deleteOne({ id })).deletedCount === 1;
    },
    async ensureVapidKeys(candidate) {
      try {
        await vapid.updateOne(
          { _id: 'vapid' },
          { $setOnInsert: { public_key: candidate.publicKey, private_key: candidate.privateKey } },
          { upsert: true },
        );
      } catch (err) {
        // Two daemons upserting at once: the loser gets a duplicate key; the winner's keys count.
        if (!(err instanceof MongoServerError && err.code === DUPLICATE_KEY)) throw err;
      }
      const doc = (await vapid.findOne({ _id: 'vapid' }))!;
      return { publicKey: doc.public_key, privateKey: doc.private_key };
    },
  };
}

interface ReportDayDoc {
  day: string;
  owner: string;
  status: 'running' | 'done';
  lease_until_ms: number;
  report_id: string | null;
}

/** Reports stored before reports of a host group existed cover the whole fleet. */
const fleetUnlessGrouped = <R extends DailyReportListItem>(r: R): R => ({ ...r, group_id: r.group_id ?? null, group_name: r.group_name ?? null, host_ids: r.host_ids ?? null });

export function mongoReports(db: Db): ReportsRepo {
  const reports = db.collection<DailyReportRecord>('reports');
  const days = db.collection<ReportDayDoc>('report_days');
  const events = db.collection<Omit<StoredEvent, 'occurred_at'>>('events');
  return {
    async claimDay(day, owner, nowMs, leaseUntilMs) {
      return withLock(db, `report_day:${day}`, async () => {
        const row = await days.findOne({ day });
        if (!row) {
          await days.insertOne({ day, owner, status: 'running', lease_until_ms: leaseUntilMs, report_id: null });
          return true;
        }
        if (row.status !== 'running' || row.lease_until_ms >= nowMs) return false;
        await days.updateOne({ day }, { $set: { owner, lease_until_ms: leaseUntilMs } });
        return true;
      });
    },
    async finishDay(day, owner, reportId) {
      await days.updateOne({ day, owner }, { $set: { status: 'done', report_id: reportId } });
    },
    async insert(r) {
      await reports.insertOne({ ...r });
    },
    async list(limit, beforeMs, groupId) {
      const docs = await reports
        .find({ created_ms: { $lt: beforeMs ?? Number.MAX_SAFE_INTEGER }, ...(groupId === undefined ? {} : { group_id: groupId }) }, { projection: { _id: 0, html: 0 } })
        .sort({ created_ms: -1 })
        .limit(limit)
        .toArray();
      return docs.map(fleetUnlessGrouped);
    },
    async byId(id) {
      const doc = await reports.findOne({ id }, NO_ID);
      return doc && fleetUnlessGrouped(doc);
    },
    async agentReports(fromMs, toMs) {
      const docs = await events
        .find({ type: { $in: ['report.daily.ssh', 'report.daily.rdp'] }, received_ms: { $gte: fromMs, $lt: toMs } }, NO_ID)
        .sort({ received_ms: 1 })
        .toArray();
      return docs.map((d) => ({ ...d, occurred_at: d.event.occurred_at }));
    },
  };
}
