import { describe, expect, it } from 'vitest';
import { BAD_PAYLOADS, nested } from '../../test/helpers/bad-payloads.js';
import { loadFixtures } from '../../test/helpers/events.js';
import { categoryForType, compareSeverity, EVENT_LIMITS, isIanaTimeZone, isRfc3339, parseEvent } from './event.schema.js';

const fixtures = loadFixtures() as Record<string, any>[];
const base = () => structuredClone(fixtures[0]);

describe('EventSchema 1.0', () => {
  it.each(fixtures.map((f) => [f.type, f]))('accepts the agent fixture %s', (_type, fixture) => {
    const result = parseEvent(fixture);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it.each(BAD_PAYLOADS.map((c) => [c.rule, c]))('rejects: %s', (_rule, c) => {
    const event = base();
    c.mutate(event);
    const result = parseEvent(event);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.path)).toEqual([c.path]);
  });

  it('accepts each limit at its boundary', () => {
    const event = base();
    event.title = 'x'.repeat(EVENT_LIMITS.title);
    event.summary = 'x'.repeat(EVENT_LIMITS.summary);
    event.raw = { format: 'windows_event_xml', payload: 'x'.repeat(EVENT_LIMITS.rawPayload) };
    event.tags = Array.from({ length: EVENT_LIMITS.tags }, () => 'x'.repeat(EVENT_LIMITS.tag));
    event.dedup_key = 'x'.repeat(EVENT_LIMITS.dedupKey);
    event.fingerprint = 'x'.repeat(EVENT_LIMITS.fingerprint);
    event.type = 'x'.repeat(EVENT_LIMITS.type);
    event.details = nested(EVENT_LIMITS.objectDepth, { leaf: 'x' });
    event.enrichment = { attempt_number: 0, threshold: 0, filtered_out: true, filter_reason: 'allow-list', blob: '' };
    // The whole enrichment object, as JSON, exactly at the byte limit (Cyrillic counts two bytes).
    const room = EVENT_LIMITS.objectBytes - Buffer.byteLength(JSON.stringify(event.enrichment));
    event.enrichment.blob = 'ж'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2);
    expect(Buffer.byteLength(JSON.stringify(event.enrichment))).toBe(EVENT_LIMITS.objectBytes);
    const result = parseEvent(event);
    expect(result.ok ? [] : result.issues).toEqual([]);
    event.enrichment.blob += 'x';
    expect(parseEvent(event).ok).toBe(false);
  });

  it('takes any UUID as correlation_id, an empty raw, any non-empty type, an empty summary', () => {
    const event = base();
    event.correlation_id = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    event.raw = {};
    event.type = 'Custom Type/with spaces';
    event.summary = '';
    const result = parseEvent(event);
    expect(result.ok ? [] : result.issues).toEqual([]);
  });

  it.each([
    ['Europe/Moscow', true],
    ['America/Argentina/Buenos_Aires', true],
    ['UTC', true],
    ['Etc/GMT+3', true],
    ['Mars/Olympus_Mons', false],
    ['+03:00', false],
    ['', false],
    ['Europe/../../etc', false],
  ])('isIanaTimeZone(%s) = %s', (zone, expected) => {
    expect(isIanaTimeZone(zone)).toBe(expected);
    // Cached answers are the same answers.
    expect(isIanaTimeZone(zone)).toBe(expected);
  });

  it('lists every problem at once', () => {
    const event = base();
    event.severity = 'medium';
    event.category = 'weather';
    event.extra = true;
    const result = parseEvent(event);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.path).sort()).toEqual(['category', 'extra', 'severity']);
  });

  it('keeps details and enrichment open', () => {
    const event = base();
    event.details.anything = { nested: [1, 2] };
    event.enrichment = { risk_level: 'high', custom: 'x' };
    expect(parseEvent(event).ok).toBe(true);
  });

  it('normalises event_id and correlation_id to lower case', () => {
    const event = base();
    event.event_id = event.event_id.toUpperCase();
    event.correlation_id = '3F1C2B9E-8D4A-4C7E-9B1F-2A6D5E0C7B11';
    const result = parseEvent(event);
    expect(result.ok && [result.event.event_id, result.event.correlation_id]).toEqual([
      fixtures[0].event_id,
      '3f1c2b9e-8d4a-4c7e-9b1f-2a6d5e0c7b11',
    ]);
  });

  it('accepts the placeholders agents send instead of an IP', () => {
    const event = base();
    event.host.ipv4 = 'N/A';
    expect(parseEvent(event).ok).toBe(true);
  });
});

describe('event helpers', () => {
  it.each([
    ['2026-06-03T09:14:27.512+10:00', true],
    ['2026-06-03T14:02:10+03:00', true],
    ['2026-06-03T09:14:27Z', true],
    ['2026-06-03t09:14:27.123456789z', true],
    ['2026-06-03T09:14:27', false],
    ['2026-06-03 09:14:27Z', false],
    ['2026-02-30T09:14:27Z', false],
    ['2028-02-29T09:14:27Z', true],
    ['2026-06-03T09:14:27+25:00', false],
    ['2026-06-03T25:14:27Z', false],
  ])('isRfc3339(%s) = %s', (value, expected) => {
    expect(isRfc3339(value)).toBe(expected);
  });

  it.each([
    ['ssh.login.failed', 'auth'],
    ['rdp.login.success', 'auth'],
    ['auth.account.locked', 'auth'],
    ['privilege.sudo.command', 'privilege'],
    ['session.logind.new', 'session'],
    ['report.daily.rdp', 'report'],
    ['rdg.connection.success', 'network'],
    ['winrm.session.started', 'agent'],
    ['smb.admin_share.access', 'agent'],
  ])('categoryForType(%s) = %s', (type, category) => {
    expect(categoryForType(type)).toBe(category);
  });

  it('orders severities', () => {
    expect(compareSeverity('info', 'critical')).toBeLessThan(0);
    expect(compareSeverity('high', 'warning')).toBeGreaterThan(0);
    expect(compareSeverity('high', 'high')).toBe(0);
  });
});
