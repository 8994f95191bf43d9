import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../test/helpers/fake-clock.js';
import { systemClock } from '../clock.js';
import type { LeasesRepo } from '../store/index.js';
import { JobRunner } from './job-runner.js';

/** An in-memory lease table with the store's semantics (one owner until expiry, a new token per change of hands). */
function memoryLeases(): LeasesRepo & { held: Map<string, { owner: string; until: number; token: number }> } {
  const held = new Map<string, { owner: string; until: number; token: number }>();
  return {
    held,
    async acquire(name, owner, now, ttl) {
      const cur = held.get(name);
      if (cur && cur.owner !== owner && cur.until > now) return null;
      const token = cur?.owner === owner ? cur.token : (cur?.token ?? 0) + 1;
      held.set(name, { owner, until: now + ttl, token });
      return token;
    },
    async release(name, owner) {
      const cur = held.get(name);
      if (cur?.owner === owner) cur.until = 0;
    },
    async token(name) {
      return held.get(name)?.token ?? 0;
    },
  };
}

const logger = pino({ level: 'silent' });

describe('JobRunner', () => {
  it('runs a job only on the runner holding its lease, and hands over when the lease expires', async () => {
    const leases = memoryLeases();
    let now = 1_000;
    const clock = { ...systemClock, now: () => now };
    const ran: string[] = [];
    const a = new JobRunner(leases, clock, logger, 'A');
    const b = new JobRunner(leases, clock, logger, 'B');
    const job = (who: string) => ({ name: 'scan', intervalMs: 1000, run: async () => void ran.push(who) });
    await a.tick(job('A'));
    await b.tick(job('B'));
    await a.tick(job('A'));
    expect(ran).toEqual(['A', 'A']);
    now += 30_001;
    await b.tick(job('B'));
    expect(ran).toEqual(['A', 'A', 'B']);
    await b.stop();
    expect(leases.held.get('scan')?.until).toBe(0);
    await a.tick(job('A'));
    expect(ran).toEqual(['A', 'A', 'B', 'A']);
  });

  it('never overlaps runs of one job and survives a failing run', async () => {
    const leases = memoryLeases();
    const runner = new JobRunner(leases, { ...systemClock, now: () => 0 }, logger, 'A');
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const job = {
      name: 'slow',
      intervalMs: 10,
      run: async () => {
        calls++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        if (calls === 1) throw new Error('boom');
      },
    };
    await Promise.all([runner.tick(job), runner.tick(job), runner.tick(job)]);
    expect(maxRunning).toBe(1);
    expect(calls).toBe(1);
    await runner.tick(job);
    expect(calls).toBe(2);
  });

  it('writes its lease only to take it or once half of it has run out, not on every tick', async () => {
    const leases = memoryLeases();
    const acquired: number[] = [];
    const acquire = leases.acquire.bind(leases);
    leases.acquire = async (name, owner, now, ttl) => {
      acquired.push(now);
      return acquire(name, owner, now, ttl);
    };
    let now = 0;
    const runner = new JobRunner(leases, { ...systemClock, now: () => now }, logger, 'A');
    let runs = 0;
    const job = { name: 'poll', intervalMs: 1000, run: async () => void runs++ };
    // The lease lasts 30 s (the shortest lease): ticks each second for 40 s.
    for (; now <= 40_000; now += 1000) await runner.tick(job);
    expect(runs).toBe(41);
    expect(acquired).toEqual([0, 16_000, 32_000]);
    expect(leases.held.get('poll')).toEqual({ owner: 'A', until: 62_000, token: 1 });
  });

  it('tells its observer each run and each failed run, not a run stopped because another daemon took over', async () => {
    const leases = memoryLeases();
    const seen: string[] = [];
    const runner = new JobRunner(leases, { ...systemClock, now: () => 0 }, logger, 'A', { run: (job) => seen.push(`run ${job}`), failed: (job) => seen.push(`failed ${job}`) });
    await runner.tick({ name: 'ok', intervalMs: 1000, run: async () => undefined });
    await runner.tick({ name: 'broken', intervalMs: 1000, run: async () => Promise.reject(new Error('disk gone')) });
    await runner.tick({
      name: 'taken',
      intervalMs: 1000,
      run: async (fence) => {
        leases.held.get('taken')!.token += 1;
        await fence.check();
      },
    });
    expect(seen).toEqual(['run ok', 'run broken', 'failed broken', 'run taken']);
    // A run stopped by a takeover is neither a success nor a failure of the job.
    expect(runner.jobStates().map((j) => [j.job, j.consecutive_failures, j.last_success_at !== null])).toEqual([
      ['broken', 1, false],
      ['ok', 0, true],
    ]);
  });

  it('reports a job failing on every tick with its count, first failure and message, and clears it after a success', async () => {
    const clock = new FakeClock(Date.parse('2026-11-27T09:00:00Z'));
    const runner = new JobRunner(memoryLeases(), clock, logger, 'A');
    let zone = 'Mars/Olympus';
    const job = {
      name: 'daily_report',
      intervalMs: 60_000,
      run: async () => void new Intl.DateTimeFormat('en', { timeZone: zone }),
    };
    expect(runner.jobStates()).toEqual([]);
    await runner.tick(job);
    clock.advance(60_000);
    await runner.tick(job);
    clock.advance(60_000);
    await runner.tick(job);
    expect(runner.jobStates()).toEqual([
      {
        job: 'daily_report',
        last_success_at: null,
        last_failure: { at: '2026-11-27T09:02:00.000Z', message: expect.stringMatching(/time zone/i) },
        consecutive_failures: 3,
        failing_since: '2026-11-27T09:00:00.000Z',
      },
    ]);
    zone = 'Europe/Moscow';
    clock.advance(60_000);
    await runner.tick(job);
    expect(runner.jobStates()).toEqual([
      {
        job: 'daily_report',
        last_success_at: '2026-11-27T09:03:00.000Z',
        last_failure: { at: '2026-11-27T09:02:00.000Z', message: expect.stringMatching(/time zone/i) },
        consecutive_failures: 0,
        failing_since: null,
      },
    ]);
  });
});
