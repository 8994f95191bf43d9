import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { isoAt, postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

const HOUR = 3_600_000;

describe.each(STORE_KINDS)('dashboards.eventsPerHour on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('counts events per hour of occurred time over the last 24 h by severity, oldest hour first', async () => {
    const now = Date.now();
    const events = [
      buildEvent({ occurred_at: isoAt(now), severity: 'info', type: 'rdp.login.success' }),
      buildEvent({ occurred_at: isoAt(now - 2 * HOUR), severity: 'warning' }),
      buildEvent({ occurred_at: isoAt(now - 2 * HOUR), severity: 'high', type: 'rdp.bruteforce.burst' }),
      buildEvent({ occurred_at: isoAt(now - 30 * HOUR), severity: 'high' }),
    ];
    for (const e of events) expect((await postEvent(sac.url, sac.apiKey, e)).status).toBe(201);
    const token = await adminToken(sac);
    const res = await api(sac, 'GET', '/trpc/dashboards.eventsPerHour', { token });
    expect(res.status).toBe(200);
    const hours = res.body.result.data as { hour: string; by_severity: Record<string, number> }[];
    expect(hours).toHaveLength(24);
    expect(Date.parse(hours[23].hour)).toBe(Math.floor(now / HOUR) * HOUR);
    expect(hours[23].by_severity).toEqual({ info: 1, warning: 0, high: 0, critical: 0 });
    expect(hours[21].by_severity).toEqual({ info: 0, warning: 1, high: 1, critical: 0 });
    const total = hours.reduce((n, h) => n + Object.values(h.by_severity).reduce((a, b) => a + b, 0), 0);
    expect(total).toBe(3);
    expect((await api(sac, 'GET', '/trpc/dashboards.eventsPerHour')).status).toBe(401);
  });
});
