import { vi } from 'vitest';
import { waitFor } from './clock.js';
import type { TestSac } from './daemon.js';

/** A daemon whose /metrics is read, with an admin session `token` unless its /metrics is public. */
export interface JobDaemon {
  url: string;
  token?: string;
}

/** How many runs of `job` the daemon has started as its leader (`sac_job_runs_total`). */
export async function jobRuns(d: JobDaemon, job: string): Promise<number> {
  const res = await fetch(`${d.url}/metrics`, { headers: d.token ? { authorization: `Bearer ${d.token}` } : {} });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  const text = await res.text();
  return Number(new RegExp(`^sac_job_runs_total\\{job_name="${job}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

/**
 * Resolves once a run of `job` that started after this call has ended on one of `daemons` (the one
 * leading it): the second run started there since, as runs of one job never overlap. The positive
 * marker to wait for before asserting that the job did not do something: had it been going to,
 * that run would have.
 */
export async function aFullJobRun(job: string, ...daemons: JobDaemon[]): Promise<void> {
  const before = await Promise.all(daemons.map((d) => jobRuns(d, job)));
  await waitFor(`a full run of ${job}`, async () => (await Promise.all(daemons.map((d) => jobRuns(d, job)))).some((n, i) => n >= before[i] + 2), 20_000);
}

/**
 * Resolves once the daemon `t`, not leading `job`, has asked for its lease and been refused twice
 * since this call: its tick after the first refusal had ended (ticks of one job never overlap), and
 * that tick would have run the job had the daemon not honoured the lease.
 */
export async function twoRefusedTicks(t: Pick<TestSac, 'sac'>, job: string): Promise<void> {
  const leases = t.sac.store.leases;
  const acquire = leases.acquire.bind(leases);
  let refused = 0;
  const spy = vi.spyOn(leases, 'acquire').mockImplementation(async (name, ...rest) => {
    const token = await acquire(name, ...rest);
    if (name === job && token === null) refused++;
    return token;
  });
  try {
    await waitFor(`two refused ${job} ticks`, () => refused >= 2, 20_000);
  } finally {
    spy.mockRestore();
  }
}
