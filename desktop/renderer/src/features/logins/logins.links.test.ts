import { describe, expect, it } from 'vitest';
import { evidenceEvents, sightingEvent, userPage, utcHour } from './logins.links';
import { EVIDENCE } from './logins.fixtures';

/** A `from`/`to` filter (browser-local, no zone) read back as the instant it names. */
const instant = (local: string | undefined) => new Date(Date.parse(local ?? '')).toISOString();

describe('the events behind a login-intelligence problem', () => {
  it.each([
    ['login_after_failures', { ip: '198.51.100.9' }, '2026-11-19T09:15:00.000Z', '2026-11-20T09:15:01.000Z'],
    ['distributed_bruteforce', { ip: '198.51.100.66' }, '2026-11-20T09:00:00.000Z', '2026-11-20T09:13:01.000Z'],
  ] as const)('%s: the address or user over the time the rule looked at', (kind, filters, from, to) => {
    const link = evidenceEvents(EVIDENCE[kind]);
    expect(link?.path).toBe('/events');
    expect(link?.query).toMatchObject(filters);
    expect(instant(link?.query.from)).toBe(from);
    expect(instant(link?.query.to)).toBe(to);
  });

  it('new source: the events of the new address, at any time (Events matches a user name only as an agent wrote it)', () => {
    expect(evidenceEvents(EVIDENCE.new_source)).toEqual({ path: '/events', query: { ip: '203.0.113.50' } });
    const noAddress = { ...EVIDENCE.new_source, login: { ...(EVIDENCE.new_source as { login: object }).login, address: null } } as typeof EVIDENCE.new_source;
    expect(evidenceEvents(noAddress)).toBeNull();
  });

  it('impossible travel and mass silence have no one filter: the logins link their events, a silence has none', () => {
    expect(evidenceEvents(EVIDENCE.impossible_travel)).toBeNull();
    expect(evidenceEvents(EVIDENCE.mass_silence)).toBeNull();
  });

  it('links one login to its event among its address’s events, and a user to their page', () => {
    expect(sightingEvent({ event_id: 'e1', address: '203.0.113.7' })).toEqual({ path: '/events', query: { ip: '203.0.113.7', event: 'e1' } });
    expect(sightingEvent({ event_id: 'e1', address: null })).toEqual({ path: '/events', query: { event: 'e1' } });
    expect(userPage('CORP\\alice')).toBe('/logins/CORP%5Calice');
    expect(utcHour('2026-11-20T03:05:00.000+03:00')).toBe(0);
  });
});
