import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { rdpLogin } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T08:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('cross-host login problems over HTTP on %s', (kind) => {
  let t: TestSac;
  let token: string;

  beforeAll(async () => {
    t = await startTestSac(kind, {}, { clock: new ManualClock(T0 + 30 * MIN) });
    token = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const problemsOf = async (rule: string) => (await api(t, 'GET', `/api/v1/problems?rule=${rule}`, { token })).body.items as any[];

  it('failures of one address on four hosts, then its success, open distributed_bruteforce and login_after_failures with the severity set', async () => {
    const patched = await api(t, 'PATCH', '/api/v1/settings/correlation', { token, body: { distributed_bruteforce_severity: 'critical' } });
    expect(patched.status).toBe(200);
    const ip = '198.51.100.23';
    for (const [i, host] of ['WEB01', 'WEB02', 'WEB03'].entries()) await ingestEvent(t, rdpLogin(host, 'failed', T0 + i * MIN, ip));
    expect(await problemsOf('distributed_bruteforce')).toEqual([]);
    await ingestEvent(t, rdpLogin('WEB04', 'failed', T0 + 3 * MIN, ip));
    await ingestEvent(t, rdpLogin('WEB05', 'success', T0 + 4 * MIN, ip));

    const [distributed, ...moreDistributed] = await problemsOf('distributed_bruteforce');
    expect(moreDistributed).toEqual([]);
    expect(distributed).toMatchObject({ severity: 'critical', title: `Failed logins from ${ip} on 4 hosts: WEB01, WEB02, WEB03, WEB04` });
    const [after, ...moreAfter] = await problemsOf('login_after_failures');
    expect(moreAfter).toEqual([]);
    expect(after).toMatchObject({ hostname: 'WEB05', severity: 'high', title: `Login of administrator on WEB05 from ${ip} after 4 failed logins` });
  });
});
