import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Mid-hour, so that hour rounding of a range is visible.
const NOW = Date.parse('2026-06-10T12:30:00.000Z');

describe.each(STORE_KINDS)('dashboard time range on %s', (kind) => {
  let t: TestSac;
  let token: string;
  const clock = new ManualClock(NOW);

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    token = await adminToken(t);
    // 1 h ago (warning), 3 days ago (high, its own problem window), 10 days ago (critical).
    await ingest(t, { host: { hostname: 'NEAR' }, type: 'ssh.login.failed', severity: 'warning', title: 'recent', occurred_at: isoAt(NOW - HOUR) });
    await ingest(t, { host: { hostname: 'MID' }, type: 'rdp.login.failed', severity: 'high', title: 'three days', occurred_at: isoAt(NOW - 3 * DAY) });
    await ingest(t, { host: { hostname: 'FAR' }, type: 'auth.account.locked', severity: 'critical', title: 'ten days', occurred_at: isoAt(NOW - 10 * DAY) });
  });
  afterAll(async () => {
    await t?.close();
  });

  const summary = async (q = '') => api(t, 'GET', `/api/v1/dashboards/summary${q}`, { token });

  it('counts the last 24 h by default and the requested range otherwise, on REST and tRPC alike', async () => {
    const day = (await summary()).body;
    expect(day.range).toEqual({ from: isoAt(Date.parse('2026-06-09T13:00:00Z')), to: isoAt(Date.parse('2026-06-10T13:00:00Z')) });
    expect(day.events_24h).toBe(1);
    expect(day.by_severity).toMatchObject({ warning: 1, high: 0, critical: 0 });
    // Without a range the recent list stays what it was: the newest events whatever their age.
    expect(day.recent_events.map((e: { title: string }) => e.title)).toEqual(['recent', 'three days', 'ten days']);

    const week = `?from=${isoAt(NOW - 7 * DAY)}&to=${isoAt(NOW)}`;
    const w = (await summary(week)).body;
    expect(w.events_24h).toBe(2);
    expect(w.by_severity).toMatchObject({ warning: 1, high: 1, critical: 0 });
    expect(w.top_hosts.map((h: { hostname: string }) => h.hostname).sort()).toEqual(['MID', 'NEAR']);
    expect(w.recent_events.map((e: { title: string }) => e.title)).toEqual(['recent', 'three days']);
    // Widened to whole hours: 12:00 seven days ago up to the end of the current hour.
    expect(w.range).toEqual({ from: isoAt(Date.parse('2026-06-03T12:00:00Z')), to: isoAt(Date.parse('2026-06-10T13:00:00Z')) });

    // An absolute range in the past that holds only the oldest event.
    const old = `?from=${isoAt(NOW - 11 * DAY)}&to=${isoAt(NOW - 9 * DAY)}`;
    expect((await summary(old)).body).toMatchObject({ events_24h: 1, by_severity: { critical: 1, high: 0, warning: 0 } });
    const viaTrpc = await trpc(t, token, 'query', 'dashboards.summary', { from: isoAt(NOW - 11 * DAY), to: isoAt(NOW - 9 * DAY) });
    expect(viaTrpc.data).toMatchObject({ events_24h: 1, range: (await summary(old)).body.range });
    expect((await trpc(t, token, 'query', 'dashboards.summary')).data.events_24h).toBe(1);
  });

  it('draws the chart over the range, one bucket per hour', async () => {
    const hours = (await trpc(t, token, 'query', 'dashboards.eventsPerHour', { from: isoAt(NOW - 7 * DAY), to: isoAt(NOW) })).data as {
      hour: string;
      by_severity: Record<string, number>;
    }[];
    expect(hours).toHaveLength(7 * 24 + 1);
    const withEvents = hours.filter((h) => Object.values(h.by_severity).some((n) => n > 0));
    expect(withEvents.map((h) => h.hour)).toEqual([isoAt(Date.parse('2026-06-07T12:00:00Z')), isoAt(Date.parse('2026-06-10T11:00:00Z'))]);
    expect((await trpc(t, token, 'query', 'dashboards.eventsPerHour')).data).toHaveLength(24);
  });

  it.each([
    [`?from=${isoAt(NOW)}&to=${isoAt(NOW - HOUR)}`, 'from', 'before to'],
    [`?from=${isoAt(NOW - 32 * DAY)}&to=${isoAt(NOW)}`, 'from', '31 days'],
    ['?from=yesterday', 'from', 'ISO 8601'],
    ['?days=7', 'days', ''],
  ])('answers 400 naming the parameter for %s', async (q, parameter, text) => {
    const res = await summary(q);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'request/invalid_parameter', details: { parameter } });
    expect(res.body.error.message).toContain(text);
  });
});
