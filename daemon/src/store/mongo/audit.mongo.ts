import type { Db, Filter, ObjectId } from 'mongodb';
import type { AuditEntry, AuditQuery, AuditRepo } from '../audit.types.js';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `_id` of the entry a page ended with: the list's order within one millisecond. */
type Cursor = ObjectId | null;

function filterOf(q: Omit<AuditQuery, 'limit'>, cursor: Cursor = null): Filter<AuditEntry> {
  const filter: Filter<AuditEntry> = {};
  if (q.action?.endsWith('.')) filter.action = { $regex: `^${escapeRegex(q.action)}` };
  else if (q.action) filter.action = q.action;
  if (q.actor) filter.actor_username = { $regex: `^${escapeRegex(q.actor)}$`, $options: 'i' };
  if (q.target) filter.target = q.target;
  if (q.outcome) filter.outcome = q.outcome;
  if (q.from_ms !== undefined || q.before_ms !== undefined) {
    filter.at_ms = {
      ...(q.from_ms !== undefined ? { $gte: q.from_ms } : {}),
      ...(q.before_ms !== undefined ? { $lt: q.before_ms } : {}),
    };
  }
  if (cursor && q.before_ms !== undefined) {
    // Before the cursor's time, or at it and after the cursor entry.
    const { at_ms: range, ...rest } = filter;
    const atCursor = q.from_ms === undefined || q.from_ms <= q.before_ms ? [{ ...rest, at_ms: q.before_ms, _id: { $lt: cursor } }] : [];
    return { $or: [{ ...rest, ...(range ? { at_ms: range } : {}) }, ...atCursor] } as Filter<AuditEntry>;
  }
  return filter;
}

export function mongoAudit(db: Db): AuditRepo {
  const audit = db.collection<AuditEntry>('audit_log');
  /** The cursor entry's `_id`; null without one, or when it is gone (the page then goes on before its time). */
  const cursorOf = async (q: Omit<AuditQuery, 'limit'>): Promise<Cursor> => {
    if (q.before_ms === undefined || q.before_id === undefined) return null;
    const doc = await audit.findOne({ id: q.before_id, at_ms: q.before_ms }, { projection: { _id: 1 } });
    return (doc?._id as ObjectId | undefined) ?? null;
  };
  return {
    async insert(e) {
      await audit.insertOne({ ...e });
    },
    async list(q) {
      return audit.find(filterOf(q, await cursorOf(q)), { projection: { _id: 0 } }).sort({ at_ms: -1, _id: -1 }).limit(q.limit).toArray();
    },
    async count(q) {
      return audit.countDocuments(filterOf(q, await cursorOf(q)));
    },
    async prune(beforeMs) {
      return (await audit.deleteMany({ at_ms: { $lt: beforeMs } })).deletedCount;
    },
  };
}
