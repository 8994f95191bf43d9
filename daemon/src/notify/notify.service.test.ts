import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NotifyChannel, ReportSummary } from '../../../shared/src/index.js';
import { ManualClock, waitFor } from '../../../test/helpers/clock.js';
import { openFreshStore } from '../../../test/helpers/stores.js';
import { AuditService } from '../audit/index.js';
import { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { ChannelDeliveries, ChannelSenders } from './channel-sender.js';
import { DeliveryError } from './delivery-error.js';
import { Dispatcher, type DispatcherOptions } from './notify.dispatcher.js';
import { outboxRows } from './notify.ingest.js';
import { NotifyService } from './notify.service.js';
import type { NotifySettings } from './notify.types.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const OPTIONS: DispatcherOptions = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 5_000, pollMs: 10, timeoutMs: 5_000, retentionMs: 86_400_000 };
const ADMIN = { user: { id: 'u1', username: 'alice', role: 'admin' as const }, ip: '127.0.0.1' };

/** Channel senders that record what each channel was handed, and fail while `failWith` says so. */
function fakeSenders() {
  const sent: { [C in NotifyChannel]: ChannelDeliveries[C][] } = { telegram: [], webhook: [], smtp: [], push: [] };
  const failWith: Partial<Record<NotifyChannel, DeliveryError>> = {};
  const sender = <C extends NotifyChannel>(channel: C) => ({
    async send(d: ChannelDeliveries[C]) {
      sent[channel].push(d);
      const failure = failWith[channel];
      if (failure) throw failure;
    },
  });
  const senders: ChannelSenders = { telegram: sender('telegram'), webhook: sender('webhook'), smtp: sender('smtp'), push: sender('push') };
  return { senders, sent, failWith };
}

function settings(over: { enabled?: NotifyChannel[] } = {}): NotifySettings {
  return {
    telegram: { botToken: '123:bot-token', chatIds: ['100', '200'], apiBase: 'http://127.0.0.1:1' },
    webhook: { url: 'http://127.0.0.1:1/hook', secret: 'hook-secret', headers: {}, timeoutMs: 2_000 },
    smtp: { url: 'smtp://127.0.0.1:1', from: 'sac@example.test', to: ['ops@example.test'] },
    push: { subject: 'mailto:ops@example.test', vapid: null },
    policy: {
      minSeverity: 'high',
      enabledChannels: over.enabled ?? ['telegram', 'webhook', 'smtp', 'push'],
      lifecycleChannels: [],
      hiddenTypes: [],
      severityOverrides: {},
      language: 'en',
    },
    report: { time: '08:00', timezone: 'UTC' },
    publicUrl: null,
  };
}

/** A fresh SQLite store, a clock standing at T0 and fake senders: what both the service and the dispatcher are built on. */
async function harness() {
  const store = await openFreshStore('sqlite');
  const clock = new ManualClock(T0);
  const fake = fakeSenders();
  return { store, clock, fake, deps: { store, senders: fake.senders, clock, logger, metrics: new Metrics(), options: OPTIONS } };
}

describe('NotifyService with fake channel senders', () => {
  let store: Store;
  let clock: ManualClock;
  let fake: ReturnType<typeof fakeSenders>;
  let notify: NotifyService;
  let current: NotifySettings;

  beforeEach(async () => {
    const h = await harness();
    ({ store, clock, fake } = h);
    current = settings();
    notify = new NotifyService({
      ...h.deps,
      source: { load: async () => current },
      sealer: { encrypt: (plain) => plain, decrypt: (sealed) => sealed },
      push: { hosts: [], allowLoopback: true, maxPerUser: 5 },
      audit: new AuditService(store.audit, clock, logger),
    });
    await notify.start();
  });

  afterEach(async () => {
    await notify.stop();
    await store.close();
  });

  it('sends a test message to each Telegram chat through the Telegram sender alone, and audits names only', async () => {
    const result = await notify.testSend('telegram', ADMIN);

    expect(result.ok).toBe(true);
    expect(fake.sent.telegram.map((d) => d.chatId).sort()).toEqual(['100', '200']);
    expect(fake.sent.telegram[0].config).toMatchObject({ botToken: '123:bot-token', timeoutMs: OPTIONS.timeoutMs });
    expect(fake.sent.telegram[0].html).toContain('alice');
    expect(fake.sent.webhook.length + fake.sent.smtp.length + fake.sent.push.length).toBe(0);
    const audit = await store.audit.list({ limit: 5 });
    expect(audit[0]).toMatchObject({ action: 'notify.test_sent', outcome: 'ok' });
    expect(JSON.stringify(audit[0].details)).not.toContain('100');
  });

  it('refuses a test send through a channel that is not configured, and sends nothing', async () => {
    current = { ...current, webhook: { ...current.webhook, url: null } };
    await expect(notify.testSend('webhook', ADMIN)).rejects.toMatchObject({ code: 'notify/channel_not_configured' });
    expect(fake.sent.webhook).toEqual([]);
  });

  it('queues the daily report for the enabled channels only and delivers each through its own sender', async () => {
    current = settings({ enabled: ['webhook', 'smtp'] });
    const summary: ReportSummary = {
      period_from: '2026-01-04T00:00:00.000Z',
      period_to: '2026-01-05T00:00:00.000Z',
      hosts: [],
      totals: { hosts: 0, ssh_hosts: 0, rdp_hosts: 0, successful_logins: 0, failed_logins: 0, active_bans: 0 },
      top_failed_ips: [],
    };
    const channels = await notify.sendReport({ id: 'r-1', day: '2026-01-04', summary });

    expect(channels.sort()).toEqual(['smtp', 'webhook']);
    await waitFor('the report delivered on both channels', () => fake.sent.webhook.length === 1 && fake.sent.smtp.length === 1);
    expect(fake.sent.webhook[0].body).toMatchObject({ kind: 'report' });
    expect(fake.sent.webhook[0].config).toMatchObject({ url: 'http://127.0.0.1:1/hook', secret: 'hook-secret', timeoutMs: 2_000 });
    expect(fake.sent.smtp[0].config.to).toEqual(['ops@example.test']);
    expect(fake.sent.telegram).toEqual([]);
  });
});

describe('Dispatcher retries with fake channel senders', () => {
  let store: Store;
  let clock: ManualClock;
  let fake: ReturnType<typeof fakeSenders>;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    const h = await harness();
    ({ store, clock, fake } = h);
    dispatcher = new Dispatcher({ ...h.deps, settings: () => settings(), vapid: () => ({ publicKey: 'pub', privateKey: 'priv' }) });
  });

  afterEach(async () => {
    await store.close();
  });

  async function queued(channel: NotifyChannel, target: string | null) {
    const [row] = outboxRows({ topic: 'test', ref: null, content: { kind: 'test', requested_by: 'alice' } }, [channel], { [channel]: [target] }, OPTIONS.maxAttempts, clock.now());
    await store.outbox.insertMany([row]);
    return row;
  }

  async function attemptStored(id: string) {
    const row = (await store.outbox.byId(id))!;
    await dispatcher.attempt(row);
    return (await store.outbox.byId(id))!;
  }

  it('backs off exponentially after retryable failures and gives up after the last attempt', async () => {
    fake.failWith.webhook = new DeliveryError('webhook answered 503', { status: 503 });
    const row = await queued('webhook', null);

    const waits: number[] = [];
    for (let attempt = 1; attempt < OPTIONS.maxAttempts; attempt++) {
      const after = await attemptStored(row.id);
      expect(after).toMatchObject({ status: 'pending', attempts: attempt, last_error: 'webhook answered 503' });
      waits.push(after.next_attempt_ms - clock.now());
      clock.set(after.next_attempt_ms);
    }
    // Doubling from the base delay, capped at the maximum.
    expect(waits).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(await attemptStored(row.id)).toMatchObject({ status: 'failed', attempts: OPTIONS.maxAttempts });
    expect(fake.sent.webhook).toHaveLength(OPTIONS.maxAttempts);
  });

  it('waits as long as Telegram asks when that is longer than the backoff', async () => {
    fake.failWith.telegram = new DeliveryError('Telegram answered 429', { status: 429, retryAfterMs: 30_000 });
    const row = await queued('telegram', '100');
    expect(await attemptStored(row.id)).toMatchObject({ status: 'pending', next_attempt_ms: T0 + 30_000 });
  });

  it('does not retry a permanent failure', async () => {
    fake.failWith.smtp = new DeliveryError('SMTP server answered 550: no such user', { status: 550, permanent: true });
    const row = await queued('smtp', null);
    expect(await attemptStored(row.id)).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('removes a push subscription the push service says is gone (410), and delivers nothing more to it', async () => {
    await store.users.insert({ id: 'u-push', username: 'bob', display_name: null, role: 'monitor', active: true, password_hash: 'x', token_version: 0, created_ms: T0, updated_ms: T0, last_login_ms: null });
    await store.push.upsert({ id: 'sub-1', endpoint: 'http://127.0.0.1:9/push', p256dh: 'k', auth: 'a', user_id: 'u-push', label: null, created_ms: T0 }, 5);
    fake.failWith.push = new DeliveryError('push service answered 410', { status: 410, permanent: true });
    const row = await queued('push', 'sub-1');

    expect(await attemptStored(row.id)).toMatchObject({ status: 'failed' });
    expect(fake.sent.push[0].target.endpoint).toBe('http://127.0.0.1:9/push');
    expect(await store.push.byId('sub-1')).toBeNull();
  });
});
