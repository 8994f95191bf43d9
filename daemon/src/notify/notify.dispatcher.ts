import type { Logger } from 'pino';
import type { Clock, Timer } from '../clock.js';
import { errorSummary } from '../errors.js';
import type { Metrics } from '../metrics.js';
import type { OutboxRecord, Store } from '../store/index.js';
import type { ChannelSenders } from './channel-sender.js';
import { DeliveryError } from './delivery-error.js';
import { mailMessage, pushMessage, telegramKeyboard, telegramMessage, webhookBody, type FormatOptions } from './notify.format.js';
import { afterFailure, type RetryPolicy } from './notify.rules.js';
import { NOTIFY_CHANNELS, type NotifyChannel } from '../../../shared/src/index.js';
import type { NotifySettings } from './notify.types.js';
import type { VapidKeys } from './push.client.js';

/** How many deliveries of one channel run at once (Telegram throttles per chat: one at a time). */
export const CHANNEL_CONCURRENCY: Record<NotifyChannel, number> = { telegram: 1, webhook: 4, smtp: 2, push: 4 };

/** Seconds a push service keeps an undelivered message. */
const PUSH_TTL_SECONDS = 24 * 3600;

/** How often old delivery log rows are pruned. */
const PRUNE_EVERY_MS = 3600 * 1000;

export interface DispatcherOptions extends RetryPolicy {
  pollMs: number;
  timeoutMs: number;
  /** Sent and failed rows older than this are deleted from the delivery log. */
  retentionMs: number;
}

/** The repositories the dispatcher reads and writes. */
export type DispatcherRepos = Pick<Store, 'outbox' | 'push' | 'users' | 'reports'>;

export interface AttemptOutcome {
  ok: boolean;
  error: string | null;
  duration_ms: number;
  status: 'pending' | 'sent' | 'failed';
}

/**
 * Delivers outbox rows: claims due rows per channel under a lease (safe with several daemons on
 * one store), sends them with bounded per-channel concurrency, and records every attempt. Runs
 * beside ingest and never blocks it: failures only reschedule rows.
 */
export class Dispatcher {
  private readonly inFlight: Record<NotifyChannel, number> = { telegram: 0, webhook: 0, smtp: 0, push: 0 };
  private readonly running = new Set<Promise<void>>();
  private timer: Timer | null = null;
  private ticking = false;
  private again = false;
  private stopped = true;
  private prunedMs = 0;

  constructor(
    private readonly deps: {
      store: DispatcherRepos;
      senders: ChannelSenders;
      clock: Clock;
      logger: Logger;
      metrics: Metrics;
      settings: () => NotifySettings;
      vapid: () => VapidKeys | null;
      options: DispatcherOptions;
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops claiming and waits for deliveries in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await Promise.allSettled([...this.running]);
  }

  /** Looks for due rows now (after an enqueue) instead of at the next poll. */
  kick(): void {
    if (this.stopped) return;
    if (this.ticking) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.timer = this.deps.clock.setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.ticking = true;
    try {
      do {
        this.again = false;
        for (const channel of NOTIFY_CHANNELS) await this.claim(channel);
      } while (this.again && !this.stopped);
      await this.pruneNowAndThen();
    } catch (err) {
      this.deps.logger.warn({ err: errorSummary(err) }, 'outbox claim failed');
    } finally {
      this.ticking = false;
      this.schedule(this.deps.options.pollMs);
    }
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = this.deps.clock.now();
    if (now - this.prunedMs < PRUNE_EVERY_MS) return;
    this.prunedMs = now;
    const removed = await this.deps.store.outbox.prune(now - this.deps.options.retentionMs);
    if (removed > 0) this.deps.logger.info({ removed }, 'delivery log pruned');
  }

  private async claim(channel: NotifyChannel): Promise<void> {
    const free = CHANNEL_CONCURRENCY[channel] - this.inFlight[channel];
    if (free <= 0 || this.stopped) return;
    const now = this.deps.clock.now();
    const lease = now + this.deps.options.timeoutMs * 3;
    const rows = await this.deps.store.outbox.claimDue(channel, now, free, lease);
    for (const row of rows) {
      this.inFlight[channel]++;
      const p = this.attempt(row)
        .then(() => undefined)
        .finally(() => {
          this.inFlight[channel]--;
          this.running.delete(p);
          this.kick();
        });
      this.running.add(p);
    }
  }

  /** One delivery attempt of a claimed row, recorded in the store; never throws. */
  async attempt(row: OutboxRecord): Promise<AttemptOutcome> {
    const started = this.deps.clock.now();
    let failure: DeliveryError | null = null;
    try {
      await this.deliver(row);
    } catch (err) {
      failure = err instanceof DeliveryError ? err : new DeliveryError(errorSummary(err).message, { cause: err });
    }
    const now = this.deps.clock.now();
    const attempts = row.attempts + 1;
    const next = failure ? afterFailure(attempts, row.max_attempts, failure, this.deps.options, now) : null;
    const status = failure ? next!.status : 'sent';
    const outcome: AttemptOutcome = { ok: !failure, error: failure?.message ?? null, duration_ms: now - started, status };
    const fields = { outbox_id: row.id, channel: row.channel, topic: row.topic, attempt: attempts };
    if (failure) this.deps.logger.warn({ ...fields, err: failure.message, status }, 'notification not delivered');
    else this.deps.logger.info(fields, 'notification delivered');
    this.deps.metrics.notificationAttempt(row.channel, status === 'pending' ? 'retry' : status);
    try {
      await this.deps.store.outbox.recordAttempt(row.id, {
        status,
        next_attempt_ms: next?.status === 'pending' ? next.next_attempt_ms : now,
        last_error: outcome.error,
        attempt: { at_ms: now, ok: outcome.ok, error: outcome.error, duration_ms: outcome.duration_ms },
      });
      if (failure?.status === 404 || failure?.status === 410) {
        if (row.channel === 'push' && row.target) await this.deps.store.push.remove(row.target);
      }
    } catch (err) {
      // The lease runs out and another attempt follows: at-least-once delivery.
      this.deps.logger.error({ ...fields, err: errorSummary(err) }, 'delivery outcome not recorded');
    }
    return outcome;
  }

  private async deliver(row: OutboxRecord): Promise<void> {
    const s = this.deps.settings();
    const timeoutMs = this.deps.options.timeoutMs;
    const fmt: FormatOptions = { lang: s.policy.language, timeZone: s.report.timezone, channel: row.channel };
    const notConfigured = () => new DeliveryError(`the ${row.channel} channel is not configured`, { permanent: true });
    switch (row.channel) {
      case 'telegram': {
        if (!s.telegram.botToken || !row.target) throw notConfigured();
        const config = { apiBase: s.telegram.apiBase, botToken: s.telegram.botToken, timeoutMs };
        const keyboard = telegramKeyboard(row.content, { ...fmt, publicUrl: s.publicUrl });
        return this.deps.senders.telegram.send({ config, chatId: row.target, html: telegramMessage(row.content, fmt), keyboard });
      }
      case 'webhook': {
        if (!s.webhook.url) throw notConfigured();
        const body = webhookBody(row.content, { id: row.id, sentAt: new Date(this.deps.clock.now()).toISOString() }, fmt);
        return this.deps.senders.webhook.send({ config: { ...s.webhook, url: s.webhook.url, timeoutMs: Math.min(timeoutMs, s.webhook.timeoutMs) }, body });
      }
      case 'smtp': {
        // A target on an e-mail row is an escalation's own recipient list (comma-separated).
        const to = row.target ? row.target.split(',') : s.smtp.to;
        if (!s.smtp.url || !s.smtp.from || to.length === 0) throw notConfigured();
        const reportHtml = row.content.kind === 'report' ? ((await this.deps.store.reports.byId(row.content.report_id))?.html ?? null) : null;
        return this.deps.senders.smtp.send({ config: { url: s.smtp.url, from: s.smtp.from, to, timeoutMs }, mail: mailMessage(row.content, fmt, reportHtml) });
      }
      case 'push': {
        const vapid = this.deps.vapid();
        const sub = row.target ? await this.deps.store.push.byId(row.target) : null;
        if (!vapid || !sub) throw new DeliveryError('the push subscription no longer exists', { permanent: true });
        // A user deactivated or deleted on another daemon (or before its subscriptions were removed) gets nothing.
        const owner = sub.user_id ? await this.deps.store.users.byId(sub.user_id) : null;
        if (!owner?.active) {
          await this.deps.store.push.remove(sub.id);
          throw new DeliveryError('the push subscription belongs to an inactive or deleted user', { permanent: true });
        }
        const config = { vapid, subject: s.push.subject, timeoutMs, ttlSeconds: PUSH_TTL_SECONDS };
        const target = { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } };
        return this.deps.senders.push.send({ config, target, payload: pushMessage(row.content, fmt) });
      }
    }
  }
}
