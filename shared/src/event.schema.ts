import { z } from 'zod';
import { AGENT_PLACEHOLDERS } from './agent-values.js';
import { isIanaTimeZone, KNOWN_TIME_ZONES } from './time-zone.js';

/** Event schema version accepted by this collector (`schema_version` must equal it exactly). */
export const EVENT_SCHEMA_VERSION = '1.0';

/** Limits of the event schema 1.0. */
export const EVENT_LIMITS = {
  title: 256,
  summary: 8192,
  rawPayload: 16384,
  tags: 32,
  tag: 64,
  dedupKey: 512,
  fingerprint: 128,
  type: 128,
  hostname: 255,
  shortText: 256,
  /** Deepest nesting of `details` and of `enrichment` (the object itself is level 1). */
  objectDepth: 32,
  /** Largest `details` and `enrichment`, each, as UTF-8 JSON. */
  objectBytes: 64 * 1024,
} as const;

/** Event severities, lowest first. */
export const SEVERITIES = ['info', 'warning', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Event categories; agents derive them from the type prefix (see `categoryForType`). */
export const CATEGORIES = ['agent', 'auth', 'privilege', 'session', 'report', 'network'] as const;
export type Category = (typeof CATEGORIES)[number];

/** Operating system families an agent may report. */
export const OS_FAMILIES = ['linux', 'windows'] as const;
export type OsFamily = (typeof OS_FAMILIES)[number];

/** The agent products that send events (`source.product`). */
export const AGENT_PRODUCTS = ['ssh-monitor', 'rdp-login-monitor'] as const;
export type AgentProduct = (typeof AGENT_PRODUCTS)[number];

/** Formats of `raw.payload`. */
export const RAW_FORMATS = ['journal', 'windows_event_xml', 'text'] as const;

/** Risk levels an agent may put in `enrichment.risk_level`. */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;

/** Compares severities: negative when `a` is lower than `b`. */
export function compareSeverity(a: Severity, b: Severity): number {
  return SEVERITIES.indexOf(a) - SEVERITIES.indexOf(b);
}

/** The category the real agents derive from an event type's prefix. */
export function categoryForType(type: string): Category {
  const prefix = type.split('.', 1)[0];
  switch (prefix) {
    case 'ssh':
    case 'auth':
    case 'rdp':
      return 'auth';
    case 'privilege':
      return 'privilege';
    case 'session':
      return 'session';
    case 'report':
      return 'report';
    case 'rdg':
      return 'network';
    default:
      return 'agent';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Version nibble 4, RFC 4122 variant (10xx in the first nibble of the fourth group).
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
// RFC 3339 date-time: a `Z` or a numeric offset is mandatory (a local time without one is ambiguous).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Most UTF-8 bytes one UTF-16 unit of a string takes in JSON (`\u001f` is six). */
const JSON_BYTES_PER_UNIT = 6;

/**
 * Why a free-form object (`details`, `enrichment`) is too big to keep, or null. Depth is walked
 * with an explicit stack and stops at the first level too deep, so a payload nested thousands
 * deep never reaches a recursive serializer (structured clone, JSON.stringify) that would throw.
 * The walk also sums an upper bound of the JSON size; only an object whose bound exceeds the limit
 * (rare: most are a few hundred bytes) is serialized to measure it exactly.
 */
export function freeObjectProblem(value: Record<string, unknown>): string | null {
  const stack: { node: object; depth: number }[] = [{ node: value, depth: 1 }];
  let bound = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > EVENT_LIMITS.objectDepth) return `must be nested at most ${EVENT_LIMITS.objectDepth} levels deep`;
    let children: unknown[];
    bound += 2;
    if (Array.isArray(node)) children = node;
    else {
      const keys = Object.keys(node);
      children = [];
      for (const key of keys) {
        // BSON keys are C strings: MongoDB cannot store a key with a NUL in it.
        if (key.includes('\u0000')) return 'must not have a key containing a NUL character';
        bound += key.length * JSON_BYTES_PER_UNIT + 4;
        children.push((node as Record<string, unknown>)[key]);
      }
    }
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
      else bound += (typeof child === 'string' ? child.length * JSON_BYTES_PER_UNIT : 24) + 3;
    }
  }
  if (bound <= EVENT_LIMITS.objectBytes) return null;
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes > EVENT_LIMITS.objectBytes ? `must be at most ${EVENT_LIMITS.objectBytes} bytes as JSON` : null;
}

const freeObject = <T extends z.ZodType<Record<string, unknown>>>(schema: T) =>
  schema.superRefine((value, ctx) => {
    const problem = freeObjectProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/** True when `value` is a valid RFC 3339 date-time with `Z` or a numeric offset. */
export function isRfc3339(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [, year, month, day, hour, minute, second] = m.map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return false;
  const offset = m[8];
  if (offset.length === 6 && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4)) > 59)) return false;
  return !Number.isNaN(Date.parse(value.toUpperCase()));
}

const uuid = z
  .string()
  .regex(UUID, 'must be a UUID')
  .transform((v) => v.toLowerCase());
const uuidV4 = z
  .string()
  .regex(UUID_V4, 'must be a version 4 UUID')
  .transform((v) => v.toLowerCase());

const text = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

const placeholder = z.literal(AGENT_PLACEHOLDERS);

const SourceSchema = z.strictObject({
  product: z.enum(AGENT_PRODUCTS),
  product_version: text(64),
  agent_instance_id: text(EVENT_LIMITS.shortText).optional(),
});

const HostSchema = z.strictObject({
  hostname: text(EVENT_LIMITS.hostname),
  os_family: z.enum(OS_FAMILIES),
  fqdn: text(EVENT_LIMITS.hostname).optional(),
  display_name: text(EVENT_LIMITS.shortText).optional(),
  os_version: text(EVENT_LIMITS.shortText).optional(),
  ipv4: z.union([z.ipv4(), placeholder]).optional(),
  ipv6: z.union([z.ipv6(), placeholder]).optional(),
  // The document lists the zones this runtime knows: no looser than the check.
  timezone: z.string().refine(isIanaTimeZone, 'must be an IANA time zone name such as Europe/Moscow').meta({ enum: KNOWN_TIME_ZONES }).optional(),
});

const RawSchema = z.strictObject({
  format: z.enum(RAW_FORMATS).optional(),
  payload: z.string().max(EVENT_LIMITS.rawPayload, `must be at most ${EVENT_LIMITS.rawPayload} characters`).optional(),
});

const EnrichmentSchema = freeObject(
  z.looseObject({
    attempt_number: z.number().int().min(0).optional(),
    threshold: z.number().int().min(0).optional(),
    risk_level: z.enum(RISK_LEVELS).optional(),
    filtered_out: z.boolean().optional(),
    filter_reason: z.string().optional(),
  }),
);

/**
 * Event envelope, schema 1.0, exactly as agents POST it to `/api/v1/events`.
 * Closed at the top level and in `source`, `host` and `raw`; `details` and `enrichment` are open.
 * `event_id` and `correlation_id` are normalised to lower case.
 */
export const EventSchema = z.strictObject({
  schema_version: z.literal(EVENT_SCHEMA_VERSION, { error: `must be "${EVENT_SCHEMA_VERSION}"` }),
  event_id: uuidV4,
  occurred_at: z.string().refine(isRfc3339, 'must be an RFC 3339 date-time with Z or a numeric offset').meta({ format: 'date-time', pattern: RFC3339.source }),
  source: SourceSchema,
  host: HostSchema,
  category: z.enum(CATEGORIES),
  // The list of types is open: any non-empty string.
  type: text(EVENT_LIMITS.type),
  severity: z.enum(SEVERITIES),
  title: text(EVENT_LIMITS.title),
  summary: z.string().max(EVENT_LIMITS.summary, `must be at most ${EVENT_LIMITS.summary} characters`),
  details: freeObject(z.record(z.string(), z.unknown())).optional(),
  raw: RawSchema.optional(),
  tags: z
    .array(text(EVENT_LIMITS.tag))
    .max(EVENT_LIMITS.tags, `must have at most ${EVENT_LIMITS.tags} tags`)
    .optional(),
  enrichment: EnrichmentSchema.optional(),
  dedup_key: text(EVENT_LIMITS.dedupKey).optional(),
  fingerprint: text(EVENT_LIMITS.fingerprint).optional(),
  correlation_id: uuid.optional(),
});

/** A validated event as accepted by SAC. */
export type Event = z.output<typeof EventSchema>;
/** An event as an agent sends it. */
export type EventInput = z.input<typeof EventSchema>;

/** One validation problem: a dotted path into the payload (empty for the whole body) and a message. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Validates an untrusted payload; on failure returns every problem found, each naming its path. */
export function parseEvent(payload: unknown): { ok: true; event: Event } | { ok: false; issues: ValidationIssue[] } {
  const result = EventSchema.safeParse(payload);
  if (result.success) return { ok: true, event: result.data };
  return { ok: false, issues: toValidationIssues(result.error) };
}

/** Flattens a zod error into path/message pairs; unknown keys become one issue per key. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ path: base ? `${base}.${key}` : key, message: 'is not allowed' });
      }
    } else if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
      issues.push({ path: base, message: 'is required' });
    } else {
      issues.push({ path: base, message: issue.message });
    }
  }
  return issues;
}
