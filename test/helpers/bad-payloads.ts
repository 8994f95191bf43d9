import { EVENT_LIMITS } from '../../shared/src/index.js';

/** An object `levels` deep counting itself (`nested(1)` is `{}`), a `leaf` at the bottom. */
export function nested(levels: number, leaf: Record<string, unknown> = {}): Record<string, unknown> {
  let node: Record<string, unknown> = leaf;
  for (let i = 1; i < levels; i++) node = { a: node };
  return node;
}

/** An object whose JSON is just over `bytes` long. */
export function oversized(bytes: number): Record<string, unknown> {
  return { blob: 'x'.repeat(bytes) };
}

/** One case per rule of schema 1.0: a mutation of a valid event and the path it must be reported at. */
export const BAD_PAYLOADS: { rule: string; mutate: (e: Record<string, any>) => void; path: string }[] = [
  { rule: 'schema_version must be exactly "1.0"', mutate: (e) => (e.schema_version = '1.1'), path: 'schema_version' },
  { rule: 'schema_version is required', mutate: (e) => delete e.schema_version, path: 'schema_version' },
  { rule: 'event_id must be a UUID', mutate: (e) => (e.event_id = 'not-a-uuid'), path: 'event_id' },
  { rule: 'event_id is required', mutate: (e) => delete e.event_id, path: 'event_id' },
  { rule: 'event_id must be version 4', mutate: (e) => (e.event_id = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), path: 'event_id' },
  { rule: 'event_id must have the RFC 4122 variant', mutate: (e) => (e.event_id = '3f1c2b9e-8d4a-4c7e-cb1f-2a6d5e0c7b11'), path: 'event_id' },
  { rule: 'correlation_id must be a UUID', mutate: (e) => (e.correlation_id = '1234'), path: 'correlation_id' },
  { rule: 'occurred_at is required', mutate: (e) => delete e.occurred_at, path: 'occurred_at' },
  { rule: 'occurred_at needs an offset', mutate: (e) => (e.occurred_at = '2026-06-03T09:14:27.512'), path: 'occurred_at' },
  { rule: 'occurred_at must be a date-time', mutate: (e) => (e.occurred_at = '2026-13-03T09:14:27Z'), path: 'occurred_at' },
  { rule: 'occurred_at must not be a date only', mutate: (e) => (e.occurred_at = '2026-06-03'), path: 'occurred_at' },
  { rule: 'no extra top-level properties', mutate: (e) => (e.extra = 1), path: 'extra' },
  { rule: 'source is required', mutate: (e) => delete e.source, path: 'source' },
  { rule: 'no extra properties in source', mutate: (e) => (e.source.extra = 1), path: 'source.extra' },
  { rule: 'source.product is required', mutate: (e) => delete e.source.product, path: 'source.product' },
  { rule: 'source.product is ssh-monitor or rdp-login-monitor', mutate: (e) => (e.source.product = 'osquery'), path: 'source.product' },
  { rule: 'source.product_version is required', mutate: (e) => delete e.source.product_version, path: 'source.product_version' },
  { rule: 'host is required', mutate: (e) => delete e.host, path: 'host' },
  { rule: 'no extra properties in host', mutate: (e) => (e.host.extra = 1), path: 'host.extra' },
  { rule: 'host.hostname is required', mutate: (e) => delete e.host.hostname, path: 'host.hostname' },
  { rule: 'host.os_family is required', mutate: (e) => delete e.host.os_family, path: 'host.os_family' },
  { rule: 'host.os_family is linux or windows', mutate: (e) => (e.host.os_family = 'macos'), path: 'host.os_family' },
  { rule: 'host.ipv4 must be an IPv4 address', mutate: (e) => (e.host.ipv4 = '999.1.1.1'), path: 'host.ipv4' },
  { rule: 'host.ipv6 must be an IPv6 address', mutate: (e) => (e.host.ipv6 = '2001:db8::g'), path: 'host.ipv6' },
  { rule: 'host.timezone must be an IANA zone name', mutate: (e) => (e.host.timezone = 'Mars/Olympus_Mons'), path: 'host.timezone' },
  { rule: 'host.timezone must not be an offset', mutate: (e) => (e.host.timezone = '+03:00'), path: 'host.timezone' },
  { rule: 'category is required', mutate: (e) => delete e.category, path: 'category' },
  { rule: 'category enum', mutate: (e) => (e.category = 'weather'), path: 'category' },
  { rule: 'type is required', mutate: (e) => delete e.type, path: 'type' },
  { rule: 'type must not be empty', mutate: (e) => (e.type = ''), path: 'type' },
  { rule: 'type at most 128', mutate: (e) => (e.type = 'x'.repeat(EVENT_LIMITS.type + 1)), path: 'type' },
  { rule: 'severity is required', mutate: (e) => delete e.severity, path: 'severity' },
  { rule: 'severity enum', mutate: (e) => (e.severity = 'medium'), path: 'severity' },
  { rule: 'title is required', mutate: (e) => delete e.title, path: 'title' },
  { rule: 'title at most 256', mutate: (e) => (e.title = 'x'.repeat(EVENT_LIMITS.title + 1)), path: 'title' },
  { rule: 'summary is required', mutate: (e) => delete e.summary, path: 'summary' },
  { rule: 'summary at most 8192', mutate: (e) => (e.summary = 'x'.repeat(EVENT_LIMITS.summary + 1)), path: 'summary' },
  { rule: 'details must be an object', mutate: (e) => (e.details = 'text'), path: 'details' },
  { rule: 'details at most 32 levels deep', mutate: (e) => (e.details = nested(EVENT_LIMITS.objectDepth + 1)), path: 'details' },
  { rule: 'details nested a thousand deep', mutate: (e) => (e.details = nested(1000)), path: 'details' },
  { rule: 'details keys without NUL', mutate: (e) => (e.details = { list: [{ 'a\u0000b': 1 }] }), path: 'details' },
  { rule: 'details at most 64 KiB', mutate: (e) => (e.details = oversized(EVENT_LIMITS.objectBytes)), path: 'details' },
  { rule: 'no extra properties in raw', mutate: (e) => (e.raw = { format: 'journal', payload: 'x', extra: 1 }), path: 'raw.extra' },
  { rule: 'raw.format enum', mutate: (e) => (e.raw = { format: 'evtx', payload: 'x' }), path: 'raw.format' },
  {
    rule: 'raw.payload at most 16384',
    mutate: (e) => (e.raw = { format: 'journal', payload: 'x'.repeat(EVENT_LIMITS.rawPayload + 1) }),
    path: 'raw.payload',
  },
  { rule: 'at most 32 tags', mutate: (e) => (e.tags = Array.from({ length: 33 }, (_, i) => `t${i}`)), path: 'tags' },
  { rule: 'tag at most 64', mutate: (e) => (e.tags = ['x'.repeat(65)]), path: 'tags.0' },
  { rule: 'tags are strings', mutate: (e) => (e.tags = ['ok', 7]), path: 'tags.1' },
  { rule: 'dedup_key at most 512', mutate: (e) => (e.dedup_key = 'x'.repeat(513)), path: 'dedup_key' },
  { rule: 'fingerprint at most 128', mutate: (e) => (e.fingerprint = 'x'.repeat(129)), path: 'fingerprint' },
  { rule: 'enrichment must be an object', mutate: (e) => (e.enrichment = [1]), path: 'enrichment' },
  { rule: 'enrichment.attempt_number ≥ 0', mutate: (e) => (e.enrichment = { attempt_number: -1 }), path: 'enrichment.attempt_number' },
  { rule: 'enrichment.attempt_number is an integer', mutate: (e) => (e.enrichment = { attempt_number: 1.5 }), path: 'enrichment.attempt_number' },
  { rule: 'enrichment.threshold ≥ 0', mutate: (e) => (e.enrichment = { threshold: -3 }), path: 'enrichment.threshold' },
  { rule: 'enrichment.risk_level enum', mutate: (e) => (e.enrichment = { risk_level: 'severe' }), path: 'enrichment.risk_level' },
  { rule: 'enrichment.filtered_out is a boolean', mutate: (e) => (e.enrichment = { filtered_out: 'yes' }), path: 'enrichment.filtered_out' },
  { rule: 'enrichment.filter_reason is a string', mutate: (e) => (e.enrichment = { filter_reason: 3 }), path: 'enrichment.filter_reason' },
  { rule: 'enrichment at most 32 levels deep', mutate: (e) => (e.enrichment = nested(EVENT_LIMITS.objectDepth + 1)), path: 'enrichment' },
  { rule: 'enrichment at most 64 KiB', mutate: (e) => (e.enrichment = oversized(EVENT_LIMITS.objectBytes)), path: 'enrichment' },
];
