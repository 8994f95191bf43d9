import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { SEVERITIES, type Severity } from '../../shared/src/index.js';
import type { Store } from './store/index.js';

/** This daemon's own values, read when `/metrics` is scraped. */
export interface DaemonValues {
  ingestQueued: number;
  streamClients: number;
  streamDropped: number;
}

/** Values read when `/metrics` is scraped. */
export interface ScrapeValues extends DaemonValues {
  /** Counts read from the store (the same on every daemon of one MongoDB), or null when it did not answer. */
  store: StoreCounts | null;
}

export interface StoreCounts {
  outboxPending: number;
  hostsTotal: number;
  hostsStale: number;
  openProblems: Map<Severity, number>;
}

/** Where a store call failed, for `sac_store_errors_total`. */
export type StoreOperation = 'ingest_commit' | 'metrics_read';

const INGEST_ROUTE = '/api/v1/events';

/**
 * The route template of an answered request (never the raw path: bounded label values). Express
 * leaves the matched route on the request; tRPC is one mount (its calls would be unbounded), and
 * the console's files and unknown paths are `other`. Express shortens `url` inside a mount, so
 * the path is read from `originalUrl`.
 */
function routeOf(req: IncomingMessage): string {
  const { route, originalUrl } = req as { route?: { path?: unknown }; originalUrl?: string };
  if (route?.path !== undefined) return String(route.path);
  return (originalUrl ?? req.url ?? '').startsWith('/trpc') ? '/trpc' : 'other';
}

/**
 * The daemon's Prometheus metrics (prom-client, one registry per daemon so several daemons in one
 * process keep their own): Node.js and process metrics, ingest outcomes, batch and HTTP timings,
 * notification deliveries, jobs, the live stream, the store, and store counts read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly created: Counter;
  private readonly duplicate: Counter<'reason'>;
  private readonly rejected: Counter<'reason' | 'status'>;
  private readonly batchSize: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly notifications: Counter<'channel' | 'outcome'>;
  private readonly notificationsLost: Counter;
  private readonly jobRuns: Counter<'job_name'>;
  private readonly jobFailures: Counter<'job_name'>;
  private readonly threadRestarts: Counter;
  private readonly storeErrors: Counter<'operation'>;
  private readonly streamDropped: Counter;
  private readonly ingestQueue: Gauge;
  private readonly streamClients: Gauge;
  private readonly storeUp: Gauge;
  private readonly outboxPending: Gauge;
  private readonly hosts: Gauge<'status'>;
  private readonly openProblems: Gauge<'severity'>;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // prom-client's sums of the per-type gauges below are gauges named `_total`, which promtool
    // refuses; nodejs_active_handles/requests/resources{type} carry the same figures.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    this.created = new Counter({ name: 'sac_ingest_created_total', help: 'Events stored (answered 201).', registers });
    this.duplicate = new Counter({ name: 'sac_ingest_duplicate_total', help: 'Events already stored (answered 409).', registers });
    this.rejected = new Counter({
      name: 'sac_ingest_rejected_total',
      help: 'Ingest requests answered with an error status, by reason (unauthorized, too_large, validation, unprocessable, host_mismatch, overloaded, unavailable) and HTTP status.',
      labelNames: ['reason', 'status'],
      registers,
    });
    this.batchSize = new Histogram({
      name: 'sac_ingest_batch_size',
      help: 'Events per ingest batch committed to the store.',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
      registers,
    });
    this.commitSeconds = new Histogram({
      name: 'sac_ingest_commit_duration_seconds',
      help: 'Time to commit one ingest batch durably, with what it derives (problems, hosts, outbox).',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'sac_http_request_duration_seconds',
      help: 'HTTP requests from arrival to the answer sent, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    });
    this.notifications = new Counter({
      name: 'sac_notifications_total',
      help: 'Notification delivery attempts by channel and outcome (sent, retry, failed).',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    this.notificationsLost = new Counter({ name: 'sac_notifications_lost_total', help: 'Notifications that could not be recorded in the outbox.', registers });
    this.jobRuns = new Counter({ name: 'sac_job_runs_total', help: 'Leader job runs started on this daemon, by job.', labelNames: ['job_name'], registers });
    this.jobFailures = new Counter({ name: 'sac_job_failures_total', help: 'Leader job runs on this daemon that ended in an error, by job.', labelNames: ['job_name'], registers });
    this.threadRestarts = new Counter({ name: 'sac_ingest_thread_restarts_total', help: 'Ingest threads replaced after they died.', registers });
    this.storeErrors = new Counter({
      name: 'sac_store_errors_total',
      help: 'Store calls that failed on the store (not on the data), by operation (ingest_commit, metrics_read).',
      labelNames: ['operation'],
      registers,
    });
    this.streamDropped = new Counter({ name: 'sac_stream_dropped_total', help: 'Live stream clients dropped for reading too slowly.', registers });
    this.ingestQueue = new Gauge({ name: 'sac_ingest_queue_length', help: 'Events accepted and not yet answered on this daemon.', registers });
    this.streamClients = new Gauge({ name: 'sac_stream_clients', help: 'Live stream (SSE) clients connected to this daemon.', registers });
    this.storeUp = new Gauge({ name: 'sac_store_up', help: '1 when the store answered the counts of this scrape, 0 when not.', registers });
    this.outboxPending = new Gauge({ name: 'sac_outbox_pending', help: 'Notifications waiting in the outbox for a delivery attempt (whole store).', registers });
    this.hosts = new Gauge({ name: 'sac_hosts', help: 'Known hosts by liveness status (whole store).', labelNames: ['status'], registers });
    this.openProblems = new Gauge({ name: 'sac_problems_open', help: 'Open or acknowledged problems by severity (whole store).', labelNames: ['severity'], registers });
    // Series that exist before their first event, so rate() and alerts see a zero, not nothing.
    for (const operation of ['ingest_commit', 'metrics_read'] as const) this.storeErrors.inc({ operation }, 0);
  }

  ingestCreated(): void {
    this.created.inc();
  }

  ingestDuplicate(): void {
    this.duplicate.inc();
  }

  ingestRejected(reason: string, status: number): void {
    this.rejected.inc({ reason, status: String(status) });
  }

  batchCommitted(events: number, seconds: number): void {
    this.batchSize.observe(events);
    this.commitSeconds.observe(seconds);
  }

  notificationAttempt(channel: string, outcome: string): void {
    this.notifications.inc({ channel, outcome });
  }

  notificationLost(): void {
    this.notificationsLost.inc();
  }

  // The label is job_name: Prometheus gives every scraped series its own `job` label.
  jobRun(job: string): void {
    this.jobRuns.inc({ job_name: job });
    this.jobFailures.inc({ job_name: job }, 0);
  }

  jobFailed(job: string): void {
    this.jobFailures.inc({ job_name: job });
  }

  ingestThreadRestarted(): void {
    this.threadRestarts.inc();
  }

  storeError(operation: StoreOperation): void {
    this.storeErrors.inc({ operation });
  }

  /** Starts timing a request; the returned function records it once answered. */
  requestStarted(req: IncomingMessage, ingest: boolean): (status: number) => void {
    const started = performance.now();
    return (status) =>
      this.requestSeconds.observe(
        { method: req.method ?? 'OTHER', route: ingest ? INGEST_ROUTE : routeOf(req), status: String(status) },
        (performance.now() - started) / 1000,
      );
  }

  /** The Prometheus text exposition, with the scrape-time values set first. */
  async render(values: ScrapeValues): Promise<string> {
    this.ingestQueue.set(values.ingestQueued);
    this.streamClients.set(values.streamClients);
    // The stream service keeps its own running count; the counter mirrors it.
    this.streamDropped.reset();
    this.streamDropped.inc(values.streamDropped);
    const counts = values.store;
    this.storeUp.set(counts ? 1 : 0);
    if (counts) {
      this.outboxPending.set(counts.outboxPending);
      this.hosts.set({ status: 'online' }, counts.hostsTotal - counts.hostsStale);
      this.hosts.set({ status: 'stale' }, counts.hostsStale);
      for (const severity of SEVERITIES) this.openProblems.set({ severity }, counts.openProblems.get(severity) ?? 0);
    } else {
      // No stale figures while the store is away: sac_store_up says why they are missing.
      this.outboxPending.reset();
      this.hosts.reset();
      this.openProblems.reset();
      this.storeError('metrics_read');
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The store counts of a scrape: one count query each, none scanning events. */
export async function readStoreCounts(store: Store): Promise<StoreCounts> {
  const [outboxPending, hostsTotal, hostsStale, openProblems] = await Promise.all([
    store.outbox.countPending(),
    store.hosts.count(),
    store.hostState.countStale(),
    store.problems.activeCountsBySeverity(),
  ]);
  return { outboxPending, hostsTotal, hostsStale, openProblems };
}
