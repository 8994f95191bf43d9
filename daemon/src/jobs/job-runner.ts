import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobState } from '../../../shared/src/index.js';
import type { Clock, Timer } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { LeasesRepo } from '../store/index.js';

/**
 * The lease a run holds. A run paused (GC, a stalled store call) past the lease's expiry may have
 * been replaced by another daemon's run; `check()` — one store read — throws `job/lease_lost` then,
 * so a run calls it immediately before each once-per-cluster side effect and stops.
 */
export interface Fence {
  /** The lease's fencing token when this run took it (see store/leases.types.ts). */
  readonly token: number;
  check(): Promise<void>;
}

/** A periodic job. It runs only on the daemon holding its lease, so several daemons on one store run it once. */
export interface Job {
  name: string;
  intervalMs: number;
  run(fence: Fence): Promise<void>;
}

/** Longest error message kept per job: /health shows it, and an error may quote what it failed on. */
const MAX_ERROR_MESSAGE = 300;

/** Shortest lease: a leader that stops renewing is replaced after this (or three intervals, if longer). */
const MIN_LEASE_MS = 30_000;

/**
 * Runs jobs every `intervalMs` under a store lease named after the job: a tick first takes or
 * renews the lease (clock time), and skips when another daemon holds it or the previous run of
 * this job has not finished. Errors are logged; the next tick tries again.
 */
export class JobRunner {
  private readonly timers: Timer[] = [];
  private readonly running = new Map<string, Promise<void>>();
  /** Jobs this runner has tried to lead (their leases are given up at stop). */
  private readonly names = new Set<string>();
  /** Until when this daemon holds each job's lease, as of its last acquisition or renewal, and under which token. */
  private readonly held = new Map<string, { until: number; token: number }>();
  /** Outcomes of the runs this daemon made as leader (kept in memory: the leader's state is the one that counts). */
  private readonly states = new Map<string, JobState>();
  private stopped = false;

  constructor(
    private readonly leases: LeasesRepo,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly owner: string = randomUUID(),
    /** Told when this daemon, as the job's leader, starts a run and when a run fails (the job counters in /metrics). */
    private readonly observer: { run(job: string): void; failed(job: string): void } = { run: () => undefined, failed: () => undefined },
  ) {}

  start(jobs: Job[]): void {
    for (const job of jobs) {
      this.timers.push(this.clock.setInterval(() => void this.tick(job), job.intervalMs));
    }
  }

  /** Runs the job now if this daemon holds (or takes) its lease; resolves when that run ends. */
  async tick(job: Job): Promise<void> {
    if (this.stopped || this.running.has(job.name)) return this.running.get(job.name);
    this.names.add(job.name);
    const run = (async () => {
      try {
        const ttl = Math.max(MIN_LEASE_MS, job.intervalMs * 3);
        const now = this.clock.now();
        // The lease is renewed once half of it has run out, not on every tick: each renewal is a
        // store write, and on SQLite a write on this thread waits, event loop blocked, for the
        // ingest thread's batch to commit (a job ticking every second stalled ingest answers).
        // Between renewals the run is fenced with the token it was renewed under.
        let held = this.held.get(job.name);
        if (!held || held.until - now < ttl / 2) {
          const token = await this.leases.acquire(job.name, this.owner, now, ttl);
          if (token === null) {
            this.held.delete(job.name);
            return;
          }
          held = { until: now + ttl, token };
          this.held.set(job.name, held);
        }
        this.observer.run(job.name);
        await job.run(this.fence(job.name, held.token));
        this.recordSuccess(job.name);
      } catch (err) {
        if (err instanceof AppError && err.code === 'job/lease_lost') {
          // Taken over while this run was paused: the next tick asks the store again.
          this.held.delete(job.name);
          this.logger.warn({ job: job.name, err: errorSummary(err) }, 'job stopped: another daemon leads it now');
        } else {
          this.observer.failed(job.name);
          this.recordFailure(job.name, errorSummary(err).message);
          this.logger.error({ job: job.name, err: errorSummary(err) }, 'job failed');
        }
      }
    })();
    this.running.set(job.name, run);
    try {
      await run;
    } finally {
      this.running.delete(job.name);
    }
  }

  /** Each job this daemon has run as leader, by name. */
  jobStates(): JobState[] {
    return [...this.states.values()].sort((a, b) => a.job.localeCompare(b.job)).map((s) => structuredClone(s));
  }

  private state(job: string): JobState {
    let state = this.states.get(job);
    if (!state) {
      state = { job, last_success_at: null, last_failure: null, consecutive_failures: 0, failing_since: null };
      this.states.set(job, state);
    }
    return state;
  }

  private recordSuccess(job: string): void {
    const state = this.state(job);
    state.last_success_at = new Date(this.clock.now()).toISOString();
    state.consecutive_failures = 0;
    state.failing_since = null;
  }

  private recordFailure(job: string, message: string): void {
    const state = this.state(job);
    const at = new Date(this.clock.now()).toISOString();
    state.last_failure = { at, message: message.slice(0, MAX_ERROR_MESSAGE) };
    state.consecutive_failures += 1;
    state.failing_since ??= at;
  }

  private fence(name: string, token: number): Fence {
    return {
      token,
      check: async () => {
        const newest = await this.leases.token(name);
        if (newest !== token) {
          throw new AppError('job/lease_lost', `the ${name} lease was taken over (token ${token}, now ${newest})`, { kind: 'operational', details: { token, newest } });
        }
      },
    };
  }

  /** Stops the timers, waits for running jobs and gives up the leases. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    await Promise.all(this.running.values());
    await Promise.all([...this.names].map((n) => this.leases.release(n, this.owner).catch(() => undefined)));
  }
}
