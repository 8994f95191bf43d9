import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApprovalRequestView, NotificationContent, NotifyChannel, StreamProblem } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { DomainFact, FactOrigin, Facts } from '../facts.js';
import type { Metrics } from '../metrics.js';
import type { InForceWindow } from '../maintenance/index.js';
import type { MaintenanceWindowRecord, OutboxFilter, OutboxRecord, OutboxTopic, PushSubscriptionRecord, Store } from '../store/index.js';
import type { ChannelSenders } from './channel-sender.js';
import { Dispatcher, type AttemptOutcome, type DispatcherOptions, type DispatcherRepos } from './notify.dispatcher.js';
import { factNotificationRows, outboxRows, problemHeldBy, problemNotice, suppressed, type EventNotifyPlan } from './notify.ingest.js';
import {
  configuredChannels,
  loginLockChannels,
  problemResolvedChannels,
  reportChannels,
} from './notify.rules.js';
import type { NotifySettingsSource } from './notify.settings.js';
import type { NotifySettings } from './notify.types.js';
import { generateVapidKeys, type VapidKeys } from './push.client.js';
import { pushEndpointProblem, type PushEndpointPolicy } from './push.policy.js';

/** How often the cached settings are re-read even without a change notice (other daemons may change them). */
const SETTINGS_REFRESH_MS = 5000;
/** Encryption context of the stored VAPID private key. */
const VAPID_SECRET_CONTEXT = 'push.vapid_private_key';

/** Encrypts secrets kept in the store (the settings' SecretBox). */
export interface Sealer {
  encrypt(plain: string, context: string): string;
  decrypt(sealed: string, context: string): string;
}

export interface TestSendResult {
  channel: NotifyChannel;
  ok: boolean;
  deliveries: ({ outbox_id: string; target: string | null } & AttemptOutcome)[];
}

/**
 * The notifier: turns committed events, problem changes, sign-in locks and daily reports into
 * outbox rows for the channels the policy picks, and owns the dispatcher that delivers them.
 * Ingest turns its commit's facts into rows inside the commit (`factNotificationRows` with
 * `eventPlan()`); the facts other features commit are turned into rows here (`subscribeNotify`).
 */
export class NotifyService {
  private settings: NotifySettings | null = null;
  private settingsLoadedMs = 0;
  private pushTargets: string[] = [];
  private windows: InForceWindow[] = [];
  private generatedVapid: VapidKeys | null = null;
  private readonly dispatcher: Dispatcher;
  private factsQueue: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: {
      store: DispatcherRepos & Pick<Store, 'problems' | 'hosts'>;
      /** The channels' transports (the real clients, or fakes in tests). */
      senders: ChannelSenders;
      clock: Clock;
      logger: Logger;
      metrics: Metrics;
      source: NotifySettingsSource;
      sealer: Sealer;
      options: DispatcherOptions;
      /** Maintenance windows that can be in force now or later (matching notifications are held back). */
      windows?: () => Promise<InForceWindow[]>;
      /** Where push endpoints may point, and how many subscriptions one user may have. */
      push: PushEndpointPolicy & { maxPerUser: number };
      audit: AuditService;
    },
  ) {
    this.dispatcher = new Dispatcher({
      store: deps.store,
      senders: deps.senders,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
      settings: () => this.current(),
      vapid: () => this.vapid(),
      options: deps.options,
    });
  }

  /**
   * Loads settings and the VAPID keys, and starts delivering. The first daemon to start on a store
   * generates the key pair; the store keeps the first one written (private key encrypted), so
   * daemons sharing a store sign with the same keys.
   */
  async start(): Promise<void> {
    const candidate = generateVapidKeys();
    const stored = await this.deps.store.push.ensureVapidKeys({
      publicKey: candidate.publicKey,
      privateKey: this.deps.sealer.encrypt(candidate.privateKey, VAPID_SECRET_CONTEXT),
    });
    this.generatedVapid = { publicKey: stored.publicKey, privateKey: this.deps.sealer.decrypt(stored.privateKey, VAPID_SECRET_CONTEXT) };
    await this.refresh();
    this.unsubscribe = this.deps.source.onChange?.(() => void this.refresh()) ?? null;
    this.dispatcher.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.factsQueue;
    await this.dispatcher.stop();
  }

  /** Re-reads settings and push subscriptions. */
  async refresh(): Promise<void> {
    try {
      const [settings, subs, windows] = await Promise.all([this.deps.source.load(), this.deps.store.push.list(), this.deps.windows?.() ?? []]);
      this.settings = settings;
      this.pushTargets = subs.map((s) => s.id);
      this.windows = windows;
      this.settingsLoadedMs = this.deps.clock.now();
    } catch (err) {
      this.deps.logger.warn({ err: errorSummary(err) }, 'notification settings not refreshed');
    }
  }

  private current(): NotifySettings {
    if (!this.settings) throw new AppError('notify/not_started', 'The notifier has not started', { kind: 'unexpected' });
    if (this.deps.clock.now() - this.settingsLoadedMs > SETTINGS_REFRESH_MS) {
      this.settingsLoadedMs = this.deps.clock.now();
      void this.refresh();
    }
    return this.settings;
  }

  private configured(s: NotifySettings): NotifyChannel[] {
    return configuredChannels(s, this.pushTargets.length > 0);
  }

  private targets(channel: NotifyChannel, s: NotifySettings): (string | null)[] {
    if (channel === 'telegram') return s.telegram.chatIds;
    if (channel === 'push') return this.pushTargets;
    return [null];
  }

  private rows(topic: OutboxTopic, ref: string | null, content: NotificationContent, channels: NotifyChannel[], s: NotifySettings): OutboxRecord[] {
    const targets = Object.fromEntries(channels.map((c) => [c, this.targets(c, s)]));
    return outboxRows({ topic, ref, content }, channels, targets, this.deps.options.maxAttempts, this.deps.clock.now());
  }

  /** What the ingest listener of event notifications needs (see notify.ingest.ts); null when no channel is configured. */
  eventPlan(): EventNotifyPlan | null {
    if (!this.settings) return null;
    const s = this.current();
    const configured = this.configured(s);
    if (configured.length === 0) return null;
    return {
      policy: s.policy,
      targets: Object.fromEntries(configured.map((c) => [c, this.targets(c, s)])),
      maxAttempts: this.deps.options.maxAttempts,
      windows: this.windows,
    };
  }

  /** Called when an ingest batch recorded event notifications (here or on the ingest thread). */
  readonly notificationsRecorded = (): void => this.dispatcher.kick();

  /** Called when an ingest batch could not record its event notifications. */
  readonly notificationsLost = (): void => this.deps.metrics.notificationLost();

  private async enqueue(rows: OutboxRecord[]): Promise<void> {
    if (rows.length === 0) return;
    await this.deps.store.outbox.insertMany(rows);
    this.dispatcher.kick();
  }

  /**
   * Facts committed outside ingest (ingest records its own in its commit): problem openings and
   * resolutions, console sign-in locks. Serialised, never throws.
   */
  readonly onFacts = (facts: readonly DomainFact[], origin: FactOrigin): void => {
    if (origin === 'ingest') return;
    const due = facts.filter((f) => f.type === 'problem.opened' || f.type === 'problem.resolved' || f.type === 'auth.login_locked');
    if (due.length === 0) return;
    this.factsQueue = this.factsQueue
      .then(() => this.record(due))
      .catch((err: unknown) => this.deps.logger.error({ err: errorSummary(err), type: due[0].type }, 'notification not recorded'));
  };

  private async record(facts: DomainFact[]): Promise<void> {
    if (!this.settings) return;
    const s = this.current();
    const plan = this.eventPlan();
    const rows = plan ? await factNotificationRows(facts, plan, this.deps.clock.now(), this.deps.store) : [];
    for (const f of facts) {
      if (f.type !== 'auth.login_locked') continue;
      const content: NotificationContent = { kind: 'login_locked', username: f.username, ip: f.ip ?? null, locked_until: f.locked_until, attempts: f.attempts };
      rows.push(...this.rows('login_locked', f.username, content, loginLockChannels(s.policy, this.configured(s)), s));
    }
    await this.enqueue(rows);
  }

  /** The maintenance window in force now that holds back notifications about this problem, if any. */
  heldBy(p: { host_id: string; hostname: string; type: string; rule: string }): Promise<MaintenanceWindowRecord | null> {
    return problemHeldBy(this.windows, p, this.deps.clock.now(), this.deps.store.hosts);
  }

  /**
   * Re-notifies an open problem (escalation step `step`): to the channels that carried its opening,
   * plus on the final step `final.channels` and an e-mail to `final.emails`. Returns the rows' channels.
   */
  async escalate(p: StreamProblem, step: number, final: { channels: NotifyChannel[]; emails: string[] } | null): Promise<NotifyChannel[]> {
    const s = this.current();
    const configured = this.configured(s);
    const carriers = await this.deps.store.outbox.carriers('problem.opened', p.id);
    const channels = problemResolvedChannels([...carriers, ...(final?.channels ?? [])], s.policy, configured);
    // A problem still growing is re-notified with its facts as they stand now.
    const problem = problemNotice(p, await this.deps.store.problems.facts(p.id));
    const content: NotificationContent = { kind: 'problem', action: 'escalated', problem, step, final: final !== null };
    const rows = this.rows('problem.escalated', p.id, content, channels, s);
    if (final && final.emails.length > 0 && s.smtp.url && s.smtp.from) {
      rows.push(...outboxRows({ topic: 'problem.escalated', ref: p.id, content }, ['smtp'], { smtp: [final.emails.join(',')] }, this.deps.options.maxAttempts, this.deps.clock.now()));
    }
    const held = await this.heldBy(p);
    if (held) await this.deps.store.outbox.insertMany(rows.map((r) => suppressed(r, held.id)));
    else await this.enqueue(rows);
    return [...new Set(rows.map((r) => r.channel))];
  }

  /**
   * Pushes a new approval request, with Approve and Deny, to the push subscriptions (browsers and
   * enrolled devices) of the users who may decide it. Addressed to people rather than an alert,
   * it follows neither the alert policy nor maintenance windows.
   */
  async askApproval(request: ApprovalRequestView, approverIds: readonly string[]): Promise<void> {
    const approvers = new Set(approverIds);
    const targets = (await this.deps.store.push.list()).filter((sub) => sub.user_id !== null && approvers.has(sub.user_id)).map((sub) => sub.id);
    const { id, action, summary, hostnames, reason, requested_by, expires_at } = request;
    const content: NotificationContent = { kind: 'approval', approval: { id, action, summary, hostnames, reason, requested_by, expires_at } };
    await this.enqueue(outboxRows({ topic: 'approval.requested', ref: id, content }, ['push'], { push: targets }, this.deps.options.maxAttempts, this.deps.clock.now()));
  }

  /** Queues a generated daily report for every usable channel; returns the channels. */
  async sendReport(report: { id: string; day: string; summary: Extract<NotificationContent, { kind: 'report' }>['summary'] }): Promise<NotifyChannel[]> {
    await this.refresh();
    const s = this.current();
    const channels = reportChannels(s.policy, this.configured(s));
    await this.enqueue(this.rows('report', report.id, { kind: 'report', report_id: report.id, day: report.day, summary: report.summary }, channels, s));
    return channels;
  }

  /** Sends a test message through one channel now, to each of its targets, and reports what happened. */
  async testSend(channel: NotifyChannel, actor: Actor): Promise<TestSendResult> {
    const requestedBy = actor.user?.username ?? 'system';
    await this.refresh();
    const s = this.current();
    if (!this.configured(s).includes(channel)) {
      const what = channel === 'push' ? 'has no registered subscription' : 'is not configured';
      throw new AppError('notify/channel_not_configured', `The ${channel} channel ${what}`);
    }
    const rows = this.rows('test', null, { kind: 'test', requested_by: requestedBy }, [channel], s).map((r) => ({
      ...r,
      max_attempts: 1,
      status: 'sending' as const,
      lease_until_ms: r.created_ms + this.deps.options.timeoutMs * 3,
    }));
    await this.deps.store.outbox.insertMany(rows);
    const deliveries = await Promise.all(
      rows.map(async (r) => ({ outbox_id: r.id, target: r.target, ...(await this.dispatcher.attempt(r)) })),
    );
    const result = { channel, ok: deliveries.every((d) => d.ok), deliveries };
    // Names and outcomes only: a test send goes to configured targets, whose addresses may be secret.
    await this.deps.audit.record({
      action: 'notify.test_sent',
      actor,
      target: `channel:${channel}`,
      outcome: result.ok ? 'ok' : 'failed',
      details: { deliveries: deliveries.length, delivered: deliveries.filter((d) => d.ok).length },
    });
    return result;
  }

  listDeliveries(filter: OutboxFilter): Promise<OutboxRecord[]> {
    return this.deps.store.outbox.list(filter);
  }

  async retryNow(id: string, actor: Actor): Promise<OutboxRecord> {
    const row = await this.deps.store.outbox.retryNow(id, this.deps.clock.now());
    if (row) await this.deps.audit.record({ action: 'notify.retried', actor, target: `delivery:${id}`, details: { channel: row.channel, topic: row.topic } });
    if (!row) {
      const exists = await this.deps.store.outbox.byId(id);
      if (!exists) throw new AppError('notify/delivery_not_found', 'No such delivery');
      throw new AppError('notify/not_retryable', `A ${exists.status} delivery cannot be retried`);
    }
    this.dispatcher.kick();
    return row;
  }

  /** Keys stored by an admin in the push settings win over the generated ones. */
  private vapid(): VapidKeys | null {
    return this.settings?.push.vapid ?? this.generatedVapid;
  }

  /** The VAPID public key browsers subscribe with (applicationServerKey). */
  vapidPublicKey(): string {
    const keys = this.vapid();
    if (!keys) throw new AppError('notify/not_started', 'The notifier has not started', { kind: 'unexpected' });
    return keys.publicKey;
  }

  async registerPushSubscription(
    input: { endpoint: string; keys: { p256dh: string; auth: string }; label?: string | null },
    userId: string,
  ): Promise<PushSubscriptionRecord> {
    const problem = pushEndpointProblem(input.endpoint, this.deps.push);
    if (problem) throw new AppError('notify/push_endpoint_refused', `The push endpoint ${problem}`);
    const result = await this.deps.store.push.upsert(
      {
        id: randomUUID(),
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        user_id: userId,
        label: input.label ?? null,
        created_ms: this.deps.clock.now(),
      },
      this.deps.push.maxPerUser,
    );
    if (result.status === 'other_user') {
      // Not moved: whoever knows an endpoint must not take over its notifications. The browser's
      // first user unsubscribes (or is removed) before another user registers the same one.
      throw new AppError('notify/push_endpoint_taken', 'This push endpoint is registered to another user');
    }
    if (result.status === 'limit') {
      throw new AppError('notify/too_many_subscriptions', `At most ${this.deps.push.maxPerUser} push subscriptions per user`);
    }
    await this.refresh();
    return result.record;
  }

  /**
   * Called after any change to a user: a deactivated or deleted user's subscriptions are removed,
   * so nothing more is pushed to their devices.
   */
  async userChanged(userId: string): Promise<void> {
    const user = await this.deps.store.users.byId(userId);
    if (user?.active) return;
    if ((await this.deps.store.push.removeByUser(userId)) > 0) await this.refresh();
  }

  listPushSubscriptions(): Promise<PushSubscriptionRecord[]> {
    return this.deps.store.push.list();
  }

  /** Removes a subscription; a non-admin may remove only their own. */
  async removePushSubscription(id: string, user: { id: string; role: string }): Promise<void> {
    const sub = await this.deps.store.push.byId(id);
    if (!sub || (user.role !== 'admin' && sub.user_id !== user.id)) {
      throw new AppError('notify/subscription_not_found', 'No such push subscription');
    }
    await this.deps.store.push.remove(id);
    await this.refresh();
  }
}

/** The notifier's reaction to facts (see `NotifyService.onFacts`); returns the unsubscribe function. */
export function subscribeNotify(facts: Pick<Facts, 'subscribe'>, notify: Pick<NotifyService, 'onFacts'>): () => void {
  return facts.subscribe(notify.onFacts);
}
