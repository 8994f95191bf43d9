import { z } from 'zod';
import { KNOWN_TIME_ZONES } from './time-zone.js';
import { trimmedText } from './trimmed-text.js';

/** Bounds of a maintenance window's matchers and text. */
export const MAINTENANCE_LIMITS = { hosts: 200, groups: 50, typePrefixes: 50, rules: 20, reason: 1000, maxDays: 366 } as const;

const typePrefix = z.string().regex(/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*\.?$/, 'must be an event type or dotted prefix such as rdp.login');
const hostname = z.string().min(1).max(255).regex(/^[^\s]+$/, 'must be a hostname without spaces');
const ruleName = z.string().min(1).max(64).regex(/^[a-z][a-z0-9_.-]*$/, 'must be a problem rule name such as host_silence');

/** Weekly recurrence: the window is active from `start` (local time in `timezone`) for `duration_minutes` on each listed weekday (0 = Sunday). */
export const WeeklyRecurrenceSchema = z.strictObject({
  weekdays: z.array(z.number().int().min(0).max(6)).min(1).max(7),
  start: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24 h)'),
  duration_minutes: z.number().int().min(1).max(7 * 24 * 60),
  /** Checked against the runtime's zones when saved (aliases too); the document lists the canonical names. */
  timezone: z.string().min(1).max(64).meta({ enum: KNOWN_TIME_ZONES }),
});
export type WeeklyRecurrence = z.infer<typeof WeeklyRecurrenceSchema>;

const windowFields = {
  /** Hostnames (case-insensitive); empty and no `group_ids` = every host. */
  hosts: z.array(hostname).max(MAINTENANCE_LIMITS.hosts).default([]),
  /** Host groups (ids): their members, as they are when a notification comes, besides `hosts`; both empty = every host. */
  group_ids: z.array(z.string().min(1).max(64)).max(MAINTENANCE_LIMITS.groups).default([]),
  /** Event type prefixes (`rdp.login` matches `rdp.login.failed`); empty = every type. */
  type_prefixes: z.array(typePrefix).max(MAINTENANCE_LIMITS.typePrefixes).default([]),
  /** Problem rules (e.g. `host_silence`); empty = every rule. */
  rules: z.array(ruleName).max(MAINTENANCE_LIMITS.rules).default([]),
  starts_at: z.iso.datetime({ offset: true }),
  /** End of the window (one-off) or of its recurrence; null with a recurrence = no end. */
  ends_at: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Alternative to `ends_at` for a one-off window. */
  duration_minutes: z.number().int().min(1).max(MAINTENANCE_LIMITS.maxDays * 24 * 60).optional(),
  recurrence: WeeklyRecurrenceSchema.nullable().default(null),
  reason: trimmedText(MAINTENANCE_LIMITS.reason),
};

/** `maintenance.create` / `POST /api/v1/maintenance-windows`. */
export const MaintenanceWindowInputSchema = z.strictObject(windowFields);
export type MaintenanceWindowInput = z.input<typeof MaintenanceWindowInputSchema>;

/** `maintenance.update` / `PUT /api/v1/maintenance-windows/{id}`: the whole window again. */
export const MaintenanceWindowUpdateSchema = z.strictObject({ id: z.string().min(1).max(64), ...windowFields });

export const MaintenanceIdSchema = z.strictObject({ id: z.string().min(1).max(64) });

/** A window as the API shows it. `active` is computed at read time. */
export interface MaintenanceWindowView {
  id: string;
  hosts: string[];
  group_ids: string[];
  type_prefixes: string[];
  rules: string[];
  starts_at: string;
  ends_at: string | null;
  recurrence: WeeklyRecurrence | null;
  reason: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  ended_early_at: string | null;
  active: boolean;
}

/** `maintenance.active` / `GET /api/v1/maintenance-windows/active?host=`: windows in force now (optionally for one host). */
export const MaintenanceActiveQuerySchema = z.strictObject({ host: hostname.optional() });
