import { z } from 'zod';

const isoDate = z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time' });

/** Filters of the audit log list (`GET /api/v1/audit`, `audit.list`); newest first. */
export const AuditQuerySchema = z.strictObject({
  /** Exact action (`auth.login_failed`) or a prefix ending in `.` (`auth.`). */
  action: z.string().min(1).max(64).optional(),
  /** Username of the actor (case-insensitive). */
  actor: z.string().min(1).max(256).optional(),
  /** Target such as `user:<id>` or `settings:smtp`. */
  target: z.string().min(1).max(256).optional(),
  outcome: z.enum(['ok', 'failed', 'denied']).optional(),
  from: isoDate.optional(),
  /** Exclusive; page on with the last entry's `at` and `id` (`before_id`). */
  before: isoDate.optional(),
  /**
   * With `before`: the entries at exactly `before` that come after this one are listed too, so a
   * page ending among several entries of one millisecond loses none of them.
   */
  before_id: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
}).refine((q) => q.before_id === undefined || q.before !== undefined, { path: ['before_id'], message: 'needs before (the same entry’s at)' });
export type AuditQueryInput = z.input<typeof AuditQuerySchema>;

/** One audit log entry as the API shows it. */
export interface AuditEntryView {
  id: string;
  at: string;
  actor_id: string | null;
  actor_username: string | null;
  ip: string | null;
  action: string;
  target: string | null;
  outcome: 'ok' | 'failed' | 'denied';
  details: Record<string, unknown>;
}
