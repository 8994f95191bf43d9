import pino from 'pino';
import { afterEach } from 'vitest';
import { parseEvent, type SessionUser } from '../../shared/src/index.js';
import { AuditService, type Actor } from '../../daemon/src/audit/index.js';
import { DEFAULT_CROSS_HOST_RULES, type CorrelationSettings } from '../../daemon/src/correlation/index.js';
import { createIngestPipeline } from '../../daemon/src/ingest/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { JobRunner, type Job } from '../../daemon/src/jobs/index.js';
import { SecretBox, SettingsService } from '../../daemon/src/settings/index.js';
import { openStore, type Store } from '../../daemon/src/store/index.js';
import { buildEvent } from './events.js';
import { FakeClock } from './fake-clock.js';

/** For the service tier (`daemon/src/<feature>/*.service.test.ts`): the pieces a service test assembles. */

export const silentLogger = pino({ level: 'silent' });

/** A fresh, migrated SQLite store in memory (no file, no WAL thread). */
export function openMemoryStore(): Promise<Store> {
  return openStore({ kind: 'sqlite', file: ':memory:' });
}

export const ADMIN: SessionUser = { id: 'u-admin', username: 'admin', role: 'admin' };
export const adminActor: Actor & { user: SessionUser } = { user: ADMIN, ip: '127.0.0.1' };

/** The real settings and audit services over `store`, on `clock`. */
export function settingsOf(store: Store, clock: FakeClock): { settings: SettingsService; audit: AuditService } {
  const audit = new AuditService(store.audit, clock, silentLogger);
  return { settings: new SettingsService(store.settings, new SecretBox('service-test-master-key'), clock, audit), audit };
}

export const CORRELATION: CorrelationSettings = {
  windowMinutes: 60,
  severityOverrides: {},
  hiddenTypes: [],
  staleMinutes: 10,
  staleMinutesByProduct: {},
  silenceCooldownMinutes: 720,
  crossHost: DEFAULT_CROSS_HOST_RULES,
  typeProblems: {},
  adminUsers: new Set(),
};

/** Ingests events (built from `overrides`) as received now by `clock`, through the real pipeline. */
export async function ingestNow(store: Store, clock: FakeClock, overrides: Parameters<typeof buildEvent>[0][]): Promise<void> {
  const now = clock.now();
  const items = overrides.map((o) => {
    const parsed = parseEvent(buildEvent({ occurred_at: new Date(now).toISOString(), ...o }));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const event = parsed.event;
    return { event, host: hostObservation(event, now), occurred_ms: Date.parse(event.occurred_at), received_ms: now, actor_user: actorUser(event), agent_version: event.source.product_version };
  });
  await createIngestPipeline(store).commit(items, () => ({ now_ms: now, correlation: CORRELATION, notify: null }));
}

/**
 * Leader jobs on a JobRunner driven by a FakeClock: `advance(ms)` moves time on, runs the job
 * timers due meanwhile and waits for the runs they started; it answers how many started.
 */
export class FakeClockJobs {
  private readonly started: Promise<unknown>[] = [];
  private readonly runner: JobRunner;

  constructor(
    store: Pick<Store, 'leases'>,
    private readonly clock: FakeClock,
    jobs: Job[],
  ) {
    this.runner = new JobRunner(store.leases, clock, silentLogger, 'service-test');
    this.runner.start(jobs.map((job) => ({ ...job, run: (fence) => this.track(job.run(fence)) })));
  }

  async advance(ms: number): Promise<number> {
    const before = this.started.length;
    await this.clock.advanceAsync(ms);
    await Promise.all(this.started.slice(before));
    return this.started.length - before;
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  private track(run: Promise<void>): Promise<void> {
    this.started.push(run);
    return run;
  }
}

export interface ServiceBed {
  store: Store;
  clock: FakeClock;
  settings: SettingsService;
  audit: AuditService;
  /** Starts leader jobs on the bed's clock (stopped after the test). */
  startJobs(jobs: Job[]): FakeClockJobs;
}

/**
 * For a describe block of service tests: `start()` gives each test a fresh in-memory store, a
 * FakeClock at `startMs` and the real settings and audit services; its jobs stop and its store
 * closes after the test.
 */
export function serviceBed(startMs: number): { start(): Promise<ServiceBed> } {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const done of cleanup.splice(0).reverse()) await done();
  });
  return {
    async start() {
      const store = await openMemoryStore();
      cleanup.push(() => store.close());
      const clock = new FakeClock(startMs);
      return {
        store,
        clock,
        ...settingsOf(store, clock),
        startJobs(jobs) {
          const started = new FakeClockJobs(store, clock, jobs);
          cleanup.push(() => started.stop());
          return started;
        },
      };
    },
  };
}
