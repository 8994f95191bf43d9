import { z } from 'zod';
import { SEVERITIES, type Severity } from './event.schema.js';
import type { FailedLoginSources, GeoStatus, SourceGeo } from './geo.schema.js';
import type { ProblemEvidence } from './login-intel.schema.js';
import { isIanaTimeZone, KNOWN_TIME_ZONES } from './time-zone.js';
import { trimmedText } from './trimmed-text.js';

/** Largest page of the read API. */
export const READ_LIMIT_MAX = 500;
export const READ_LIMIT_DEFAULT = 50;

export const PROBLEM_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number];

/** Columns the problem list can be sorted by (server-side; `last_seen` newest first by default). */
export const PROBLEM_SORT_KEYS = ['last_seen', 'first_seen', 'severity', 'count', 'hostname'] as const;
export type ProblemSortKey = (typeof PROBLEM_SORT_KEYS)[number];

/**
 * A comma-separated list (REST query: `high,critical`, no spaces, no empty items) or an array (tRPC)
 * of allowed values. The REST form is one pattern, so the OpenAPI document states the rule.
 */
function listOf<T extends string>(values: readonly [T, ...T[]], name: string) {
  const item = `(${values.join('|')})`;
  return z
    .union([
      z.string().regex(new RegExp(`^${item}(,${item})*$`), `must be a comma list of ${name}: ${values.join(', ')}`),
      z.array(z.enum(values, { error: `must be a list of ${name}: ${values.join(', ')}` })),
    ])
    .transform((v) => (Array.isArray(v) ? v : (v.split(',') as T[])));
}

/**
 * An ISO 8601 date-time of the read filters: date, hours and minutes, optional seconds and fraction,
 * an optional `Z` or offset (none: the daemon's local time). Every value the pattern admits parses.
 */
const ISO_DATE_TIME =
  /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?$/;
const isoDateTime = z.string().regex(ISO_DATE_TIME, 'must be an ISO 8601 date-time');

const limit = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(READ_LIMIT_MAX, `must be at most ${READ_LIMIT_MAX}`)
  .default(READ_LIMIT_DEFAULT);

/**
 * A list's `from`/`to` refused when reversed (`to` before `from`): a 400 naming `to`, never an empty
 * page that looks like "nothing happened".
 */
const notReversed: [(r: { from?: string; to?: string }) => boolean, { message: string; path: string[] }] = [
  (r) => !r.from || !r.to || Date.parse(r.from) <= Date.parse(r.to),
  { message: 'must not be before from', path: ['to'] },
];

const typePrefix = z.string().regex(/^[a-z0-9_.*-]{1,128}$/, 'must be an event type or a dotted prefix such as rdg.connection');

/** `GET /api/v1/events` and `events.list`. */
export const EventListQuerySchema = z.strictObject({
  /** Text in the host name, case-insensitive (`RDG` finds `rdg01`). */
  hostname: z.string().min(1).max(255).optional(),
  host_id: z.string().min(1).max(64).optional(),
  /** Only hosts of this host group (its id). */
  group: z.string().min(1).max(64).optional(),
  severity: listOf(SEVERITIES, 'severities').optional(),
  type: typePrefix.optional(),
  date: z
    .string()
    .regex(/^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$/, 'must be a date YYYY-MM-DD')
    .optional(),
  tz: z
    .string()
    .max(64)
    .refine(isIanaTimeZone, 'must be an IANA time zone such as Europe/Moscow')
    .meta({ enum: KNOWN_TIME_ZONES })
    .optional(),
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  q: z.string().min(1).max(256).optional(),
  /** Text in the acting user's name (`details.user` or the shadowing user), case-insensitive. */
  user: z.string().min(1).max(256).optional(),
  /** `user` is the whole name (case-insensitive), not text in it: `ivanov` no longer finds `ivanova`. */
  user_exact: z
    .union([z.boolean(), z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true')])
    .optional(),
  /** An address in `details.ip_address`, `source_ip` or `external_ip`, exactly. */
  ip: z.string().min(1).max(64).optional(),
  /** The source address's country as enriched at ingest (ISO 3166-1 alpha-2, any case). */
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code such as DE')
    .transform((v) => v.toUpperCase())
    .optional(),
  /** The source address's autonomous system number as enriched at ingest (`AS13335` or `13335`). */
  asn: z
    .union([
      z.number().int().min(1).max(4_294_967_295),
      z
        .string()
        .regex(/^(AS)?\d{1,10}$/i, 'must be an AS number such as 13335 or AS13335')
        .transform((v) => Number(v.replace(/^AS/i, ''))),
    ])
    .refine((n) => n >= 1 && n <= 4_294_967_295, 'must be an AS number between 1 and 4294967295')
    .optional(),
  /** By occurred time: newest first (default) or oldest first. */
  order: z.enum(['desc', 'asc'], { error: 'must be desc or asc' }).optional(),
  /** Also count every matching event (`total`); costs a scan of the matches. */
  total: z
    .union([z.boolean(), z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true')])
    .optional(),
  limit,
  cursor: z.string().max(512).optional(),
}).refine(...notReversed);
export type EventListQuery = z.input<typeof EventListQuerySchema>;

/** `GET /api/v1/problems` and `problems.list`. */
export const ProblemListQuerySchema = z.strictObject({
  status: listOf(PROBLEM_STATUSES, 'statuses').optional(),
  /** A host id, or text in the host name (case-insensitive). */
  host: z.string().min(1).max(255).optional(),
  /** Only hosts of this host group (its id). */
  group: z.string().min(1).max(64).optional(),
  type: typePrefix.optional(),
  /** Text in the rule's name, case-insensitive (`flap` finds `rdg_flap`). */
  rule: z
    .string()
    .regex(/^[A-Za-z_]{1,64}$/, 'must be (part of) a rule name such as rdg_flap')
    .transform((v) => v.toLowerCase())
    .optional(),
  severity: listOf(SEVERITIES, 'severities').optional(),
  from: isoDateTime.optional(),
  to: isoDateTime.optional(),
  /** `me` (the caller), `none` (unassigned) or a user id. */
  assignee: z.union([z.literal('me'), z.literal('none'), z.uuid('must be me, none or a user id')]).optional(),
  sort: z.enum(PROBLEM_SORT_KEYS, { error: `must be one of ${PROBLEM_SORT_KEYS.join(', ')}` }).optional(),
  dir: z.enum(['desc', 'asc'], { error: 'must be desc or asc' }).optional(),
  limit,
  cursor: z.string().max(512).optional(),
}).refine(...notReversed);
export type ProblemListQuery = z.input<typeof ProblemListQuerySchema>;

/** Longest dashboard range: 31 days of hourly counters (744 chart buckets). */
export const DASHBOARD_RANGE_MAX_MS = 31 * 24 * 3_600_000;

/**
 * `GET /api/v1/dashboards/summary`, `dashboards.summary` and
 * `dashboards.eventsPerHour`: the range counted, by occurred time. Default: the last 24 h; `to`
 * alone means the 24 h before it, `from` alone up to now. Counters are hourly, so the range is
 * widened to whole hours (the answer's `range` says which).
 */
export const DashboardRangeQuerySchema = z
  .strictObject({
    from: isoDateTime.optional(),
    to: isoDateTime.optional(),
    /** Only hosts of this host group (its id). */
    group: z.string().min(1).max(64).optional(),
  })
  .refine((r) => !r.from || !r.to || Date.parse(r.from) < Date.parse(r.to), { message: 'must be before to', path: ['from'] })
  .refine((r) => !r.from || !r.to || Date.parse(r.to) - Date.parse(r.from) <= DASHBOARD_RANGE_MAX_MS, {
    message: 'the range must be at most 31 days',
    path: ['from'],
  });
export type DashboardRangeQuery = z.input<typeof DashboardRangeQuerySchema>;

/** A console user a problem can be assigned to (`GET /api/v1/problem-assignees`, `problems.assignees`). */
export interface ProblemAssignee {
  id: string;
  username: string;
  display_name: string | null;
}

/** `POST /api/v1/problems/{id}/assign` and `problems.assign`: a user id, or null to unassign. */
export const ProblemAssignBodySchema = z.strictObject({
  assignee_id: z.uuid('must be a user id').nullable(),
  /**
   * The assignee the caller saw (null: unassigned). When given and no longer current, the change
   * is refused with 409 `problem/assignee_changed` instead of silently taking a problem over.
   */
  expected_assignee_id: z.uuid('must be a user id').nullable().optional(),
});

/** Columns the host list can be sorted by (default hostname ascending). */
export const HOST_SORT_KEYS = ['hostname', 'status', 'ip', 'last_seen', 'last_event', 'open_problems'] as const;
export type HostSortKey = (typeof HOST_SORT_KEYS)[number];

/** `GET /api/v1/hosts` and `hosts.list`. */
export const HostListQuerySchema = z.strictObject({
  q: z.string().max(255).optional(),
  /** `true`: only hosts whose agent is older than its product's latest version. */
  outdated: z.enum(['true', 'false']).optional(),
  /** Only hosts of this host group (its id). */
  group: z.string().min(1).max(64).optional(),
  sort: z.enum(HOST_SORT_KEYS, { error: `must be one of ${HOST_SORT_KEYS.join(', ')}` }).optional(),
  dir: z.enum(['desc', 'asc'], { error: 'must be desc or asc' }).optional(),
});

/** Hours in a host's activity sparkline (`HostView.activity`). */
export const HOST_ACTIVITY_HOURS = 24;

/**
 * Agents send their inventory every 12 h (agent contract): an inventory older than 2 days means
 * four in a row were missed, so it no longer describes the host and the console says so.
 */
export const INVENTORY_STALE_DAYS = 2;

/** Optional comment of acknowledge/resolve. */
export const ProblemActionBodySchema = z.strictObject({
  comment: z.string().max(2000, 'must be at most 2000 characters').optional(),
});

/** A stored event as the read API lists it. */
export interface EventView {
  event_id: string;
  host_id: string;
  hostname: string;
  type: string;
  category: string;
  /** Stored severity (after a per-type override). */
  severity: Severity;
  /** The agent's severity when an override changed it, else null. */
  original_severity: Severity | null;
  title: string;
  summary: string | null;
  occurred_at: string;
  received_at: string;
  actor_user: string | null;
  agent_product: string;
  agent_version: string;
  /** Either side of an RD Gateway flap (302 + 303 within 1–10 s). */
  rdg_flap: boolean;
  /** Scope, country and ASN of the source address (`details.ip_address` …) at ingest; null without one. */
  source_geo: SourceGeo | null;
  details: Record<string, unknown>;
}

export interface EventDetailView extends EventView {
  /** The whole payload as the agent sent it. */
  event: Record<string, unknown>;
}

export interface Page<T> {
  items: T[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  /** Every match across all pages, when asked for (`total=true`). */
  total?: number;
}

export type HostStatus = 'online' | 'stale';

/**
 * What is known of an agent's version: `outdated` when older than the product's latest release or
 * than `newest_seen`; `up_to_date` only against a latest release read from a repository;
 * `unknown` otherwise (no repository configured or read yet, or a version that does not parse).
 */
export type AgentVersionStatus = 'up_to_date' | 'outdated' | 'unknown';

export interface HostView {
  id: string;
  hostname: string;
  display_name: string | null;
  os_family: string;
  fqdn: string | null;
  ipv4: string | null;
  ips: string[];
  os_version: string | null;
  agent_product: string;
  agent_version: string;
  /** The product's latest version read from git; null until read. */
  latest_version: string | null;
  /** The one outdated rule: the agent's version is older than `latest_version`. */
  outdated: boolean;
  version_status: AgentVersionStatus;
  /** The newest version of this product stored for any host (the fleet's newest). */
  newest_seen: string | null;
  /** Agent installation that sent the latest event. */
  agent_instance_id: string | null;
  /** Result of the last SSH administrator access probe; null until one has run. */
  ssh_admin_ok: boolean | null;
  /** When that probe ran; null until one has run. */
  ssh_admin_checked_at: string | null;
  status: HostStatus;
  /** Last heartbeat or daily report (the first event when there was none yet); status derives from it. */
  last_seen: string;
  /** Last event of any type received. */
  last_event_at: string;
  first_seen: string;
  open_problems: number;
  /** When the stored inventory was collected; null when the host never sent one. */
  inventory_at: string | null;
  /** Events per hour of occurred time over the last 24 h, oldest first (the current hour last). */
  activity: number[];
}

/**
 * An admin's pin of where remote actions reach a host: an IP literal or DNS name, and optionally
 * the name the WinRM HTTPS certificate carries (the daemon checks both are host names or IPs).
 */
export const HostPinSchema = z.strictObject({
  address: trimmedText(253),
  winrm_name: trimmedText(253).nullable().default(null),
});
export type HostPinInput = z.input<typeof HostPinSchema>;

/** Where remote actions with administrator credentials go for a host, and why (see README, Security). */
export type ActionTargetView =
  | { verified: true; source: 'pinned' | 'observed'; address: string; name: string }
  /** `unseen`: no agent connection seen yet; `mismatch`: seen from an address the agent does not report; `shared`: several hosts' agents connect from it. */
  | { verified: false; reason_code: 'unseen' | 'mismatch' | 'shared'; reason: string };

export interface HostDetailView extends HostView {
  /** The address SAC saw this host's agent connect from (after trusted proxies); null before any. */
  observed_ip: string | null;
  /** The action address an admin pinned, and the WinRM HTTPS name with it; null when not pinned. */
  pinned_address: string | null;
  pinned_winrm_name: string | null;
  /** The address remote actions use, or why there is none. */
  action_target: ActionTargetView;
  timezone: string | null;
  agent_instance_ids: string[];
  inventory: Record<string, unknown> | null;
  previous_inventory: Record<string, unknown> | null;
  previous_inventory_at: string | null;
}

export interface ProblemCommentView {
  at: string;
  by: string;
  action: 'acknowledge' | 'resolve' | 'reopen';
  text: string;
}

export interface ProblemView {
  id: string;
  fingerprint: string;
  host_id: string;
  hostname: string;
  type: string;
  rule: string;
  severity: Severity;
  title: string;
  status: ProblemStatus;
  count: number;
  first_seen: string;
  last_seen: string;
  created_at: string;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  resolved_by: 'manual' | 'auto' | null;
  resolved_by_user: string | null;
  resolved_at: string | null;
  /** The console user the problem is assigned to, or null. */
  assignee_id: string | null;
  assignee: string | null;
  assigned_at: string | null;
  comments: ProblemCommentView[];
}

/** One value of a problem's facts and how many of its counted events carry it. */
export interface ProblemFactCount {
  value: string;
  count: number;
}

/** How many entries each list of a problem's facts holds at most. */
export const PROBLEM_FACTS_TOP = 5;

/**
 * What a problem's counted events name, most frequent first (ties by value), at most
 * `PROBLEM_FACTS_TOP` each; the counts are exact over all of the problem's counted events.
 */
export interface ProblemFacts {
  /** Source addresses (`eventIp`). */
  addresses: ProblemFactCount[];
  /** The events' actor users. */
  users: ProblemFactCount[];
  /** The reporting hosts' names. */
  hosts: ProblemFactCount[];
}

export interface ProblemDetailView extends ProblemView {
  facts: ProblemFacts;
  /** Why a login-intelligence problem opened (stored by its rule); null for other problems. */
  evidence: ProblemEvidence | null;
  /** Newest first, at most 500; `counted: false` marks replays. */
  timeline: (EventView & { counted: boolean })[];
}

/** One hour of `dashboards.eventsPerHour`: `hour` is the bucket start (RFC 3339, UTC) of occurred time. */
export interface HourlyEvents {
  hour: string;
  by_severity: Record<Severity, number>;
}

/**
 * The dashboard. The `_24h` names are kept from before ranges existed: with `from`/`to` those
 * figures count the requested range, which `range` states (whole hours, `to` exclusive).
 */
export interface DashboardSummary {
  range: { from: string; to: string };
  events_24h: number;
  by_severity: Record<Severity, number>;
  open_problems: number;
  problems_24h: number;
  resolved_24h: number;
  hosts: { total: number; online: number; stale: number; outdated: number };
  recent_events: EventView[];
  top_hosts: { host_id: string; hostname: string; count: number }[];
  top_types: { type: string; count: number }[];
  /**
   * `received_24h` is 0 when `agent.heartbeat` is a hidden type (`hidden`); `hosts_reporting`
   * counts hosts whose last heartbeat falls in the range either way (host liveness, not events).
   */
  heartbeats: { hidden: boolean; received_24h: number; hosts_reporting: number };
  /** Agents' daily reports received in the last 24 h, once per host and platform (as the daily report counts them). */
  daily_reports_24h: { ssh: number; rdp: number; total: number };
  /** Where the range's failed logins came from (source country and ASN as enriched at ingest). */
  failed_login_sources: FailedLoginSources;
  /** Whether source addresses are being enriched now (off: new events carry no country/ASN). */
  geo: GeoStatus;
  /** The hidden types (patterns) every event figure above leaves out, as set now. */
  hidden_types: string[];
}
