import type { Db, Filter } from 'mongodb';
import type { AuditEntry, AuditQuery, AuditRepo } from '../audit.types.js';

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function filterOf(q: Omit<AuditQuery, 'limit'>): Filter<AuditEntry> {
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
  return filter;
}

export function mongoAudit(db: Db): AuditRepo {
  const audit = db.collection<AuditEntry>('audit_log');
  return {
    async insert(e) {
      await audit.insertOne({ ...e });
    },
    async list(q) {
      return audit.find(filterOf(q), { projection: { _id: 0 } }).sort({ at_ms: -1, _id: -1 }).limit(q.limit).toArray();
    },
    async count(q) {
      return audit.countDocuments(filterOf(q));
    },
    async prune(beforeMs) {
      return (await audit.deleteMany({ at_ms: { $lt: beforeMs } })).deletedCount;
    },
  };
}
