import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../daemon/src/server/app-router.js';
import { adminToken, api } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

interface HealthJob {
  job: string;
  consecutive_failures: number;
  failing_since: string | null;
  last_failure: { at: string; message?: string } | null;
}

async function healthJob(url: string, job: string, bearer?: string): Promise<HealthJob | undefined> {
  const res = await fetch(`${url}/health`, bearer ? { headers: { Authorization: `Bearer ${bearer}` } } : {});
  expect(res.status).toBe(200);
  return ((await res.json()) as { jobs: HealthJob[] }).jobs.find((j) => j.job === job);
}

describe.each(STORE_KINDS)('a time zone the server does not know, on %s', (kind) => {
  let sac: TestSac;
  let token: string;
  beforeAll(async () => {
    // The report job checks often, so a broken stored zone shows within the test.
    sac = await startTestSac(kind, { SAC_REPORT_CHECK_SECONDS: '0.05' });
    token = await adminToken(sac);
    const saved = await api(sac, 'PATCH', '/api/v1/settings/notification_policy', { token, body: { report_timezone: 'Europe/Moscow' } });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('is refused on save over REST, naming the field, and the stored zone stays', async () => {
    const res = await api(sac, 'PATCH', '/api/v1/settings/notification_policy', { token, body: { report_timezone: 'Mars/Olympus' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('settings/invalid_time_zone');
    expect(res.body.error.message).toMatch(/report_timezone .*Mars\/Olympus.* IANA/);
    expect(res.body.error.details).toEqual([{ path: 'report_timezone', message: expect.stringContaining('Mars/Olympus') }]);
    const view = await api(sac, 'GET', '/api/v1/settings/notification_policy', { token });
    expect(view.body.values.report_timezone).toBe('Europe/Moscow');
  });

  it('is refused on save over tRPC with the same code, and the stored zone stays', async () => {
    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${sac.url}/trpc`, headers: () => ({ Authorization: `Bearer ${token}` }) })] });
    const err = await trpc.settings.update.mutate({ category: 'notification_policy', values: { report_timezone: 'Mars/Olympus' } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TRPCClientError);
    const failure = err as TRPCClientError<AppRouter>;
    expect((failure.data as { appCode: string | null }).appCode).toBe('settings/invalid_time_zone');
    expect(failure.data?.httpStatus).toBe(400);
    expect(failure.message).toMatch(/report_timezone .*Mars\/Olympus/);
    expect((await trpc.settings.get.query({ category: 'notification_policy' })).values.report_timezone).toBe('Europe/Moscow');
  });

  it('stored before this check, makes the daily report job fail and /health say so, still 200', async () => {
    // A value saved by an older version: written under the service, as it was then.
    const record = await sac.sac.store.settings.get('settings.notification_policy');
    const fields = { ...(JSON.parse(record!.value) as Record<string, unknown>), report_timezone: 'Mars/Olympus' };
    await sac.sac.store.settings.put({ ...record!, value: JSON.stringify(fields) });
    sac.sac.settings.changedElsewhere('notification_policy');
    const failing = await waitFor('the daily report job failing twice', async () => {
      const job = await healthJob(sac.url, 'daily_report', token);
      return job && job.consecutive_failures >= 2 ? job : undefined;
    });
    expect(failing.last_failure?.message).toMatch(/Mars\/Olympus|time zone/i);
    expect(failing.failing_since).not.toBeNull();
    // Whoever reaches the port sees that it fails, not why: an error message can name internals.
    const anonymous = await healthJob(sac.url, 'daily_report');
    expect(anonymous?.consecutive_failures).toBeGreaterThanOrEqual(2);
    expect(anonymous?.last_failure?.at).toEqual(expect.any(String));
    expect(anonymous?.last_failure).not.toHaveProperty('message');
  });
});
