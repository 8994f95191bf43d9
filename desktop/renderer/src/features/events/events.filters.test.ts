import { describe, expect, it } from 'vitest';
import { eventsCsv } from './events.csv';
import type { EventsPage } from './events.api';
import { exactUser, filtersFromQuery, filtersToApi, filtersToQuery, isFiltered } from './events.filters';

describe('event filters in the URL', () => {
  it('round-trips through the query string and drops empty and unknown values', () => {
    const f = filtersFromQuery({ hostname: 'RDS01', severity: 'high,bogus,critical', type: ' rdg.connection ', q: '', date: '2026-06-03' });
    expect(f).toEqual({ hostname: 'RDS01', severity: ['high', 'critical'], type: 'rdg.connection', range: '', date: '2026-06-03', from: '', to: '', q: '', user: '', ip: '', country: '', asn: '', group: '', order: '', refresh: '' });
    expect(filtersToQuery(f)).toEqual({ hostname: 'RDS01', severity: 'high,critical', type: 'rdg.connection', date: '2026-06-03' });
    expect(filtersFromQuery(filtersToQuery(f))).toEqual(f);
  });

  it('turns the filters into the API query: a date carries the time zone, local times become instants', () => {
    const f = filtersFromQuery({ date: '2026-06-03', from: '2026-06-03T10:00:00' });
    const api = filtersToApi(f, 'Europe/Moscow');
    expect(api.date).toBe('2026-06-03');
    expect(api.tz).toBe('Europe/Moscow');
    expect(api.from).toBe(new Date('2026-06-03T10:00:00').toISOString());
    expect(api.severity).toBeUndefined();
    expect(filtersToApi(filtersFromQuery({}), 'UTC')).toEqual({ hostname: undefined, severity: undefined, type: undefined, date: undefined, tz: undefined, from: undefined, to: undefined, q: undefined, user: undefined, ip: undefined, order: undefined });
  });

  it('counts a relative range back from now and lets it win over absolute bounds; order and refresh are not filters', () => {
    const now = Date.parse('2026-06-03T12:00:00Z');
    const f = filtersFromQuery({ range: '1h', from: '2026-06-01T00:00:00', date: '2026-06-01', order: 'asc', refresh: '1m', user: 'ivanov', ip: '10.0.0.5' });
    expect(filtersToApi(f, 'UTC', now)).toMatchObject({ from: '2026-06-03T11:00:00.000Z', to: undefined, date: undefined, order: 'asc', user: 'ivanov', ip: '10.0.0.5' });
    expect(filtersToQuery(f)).toEqual({ range: '1h', order: 'asc', refresh: '1m', user: 'ivanov', ip: '10.0.0.5' });
    expect(filtersFromQuery({ range: '2h', refresh: '1s', order: 'sideways' })).toMatchObject({ range: '', refresh: '', order: '' });
    expect(isFiltered(filtersFromQuery({ order: 'asc', refresh: '30s' }))).toBe(false);
    expect(isFiltered(filtersFromQuery({ range: '15m' }))).toBe(true);
  });

  it('reads a user name in double quotes as the whole name (a pivot), anything else as text in it', () => {
    expect(filtersToApi(filtersFromQuery({ user: exactUser('ivanov') }), 'UTC')).toMatchObject({ user: 'ivanov', user_exact: true });
    expect(filtersToApi(filtersFromQuery({ user: 'ivanov' }), 'UTC')).not.toHaveProperty('user_exact');
    expect(filtersToApi(filtersFromQuery({ user: '""' }), 'UTC')).toMatchObject({ user: '""' });
  });
});

describe('CSV export', () => {
  const row = (id: string, title: string) =>
    ({
      event_id: id, occurred_at: '2026-06-03T09:14:27.512+10:00', received_at: 'x', severity: 'warning', hostname: 'RDS01', type: 'rdp.login.failed', title, summary: null,
      actor_user: 'administrator', agent_product: 'rdp-login-monitor', agent_version: '2.1.7-SAC', rdg_flap: false,
      details: { ip_address: '-', source_ip: '203.0.113.9' }, source_geo: { ip: '203.0.113.9', scope: 'public', country: 'NZ', asn: 64500, as_org: 'Example, Ltd' },
    }) as unknown as EventsPage['items'][number];

  it('follows the cursor through every page, escapes fields and defuses formulas', async () => {
    const pages: Record<string, EventsPage> = {
      first: { items: [row('a', 'says "hi", twice')], next_cursor: 'c2' },
      c2: { items: [row('b', '=HYPERLINK("x")')], next_cursor: null },
    };
    const progress: number[] = [];
    const { csv, rows } = await eventsCsv(async (cursor) => pages[cursor ?? 'first'], (n) => progress.push(n));
    expect(rows).toBe(2);
    expect(progress).toEqual([1, 2]);
    const lines = csv.replace(/^\ufeff/, '').trim().split('\r\n');
    expect(lines[0]).toBe('occurred_at,received_at,severity,hostname,type,title,summary,actor_user,ip,country,asn,as_org,agent_product,agent_version,rdg_flap,event_id');
    // The IP the table shows (an agent's `-` placeholder skipped), and the source's country and AS.
    expect(lines[1]).toContain(',administrator,203.0.113.9,NZ,64500,"Example, Ltd",rdp-login-monitor,');
    expect(lines[1]).toContain('"says ""hi"", twice"');
    expect(lines[2]).toContain(`"'=HYPERLINK(""x"")"`);
  });
});
