import { isIanaTimeZone, type SettingsValue, type ValidationIssue } from '../../../shared/src/index.js';
import type { NotifyConfig } from '../config.js';
import type { SettingsService } from '../settings/index.js';
import type { NotifySettings } from './notify.types.js';

/** Where the notifier reads its effective channel and policy settings (stored settings over the environment). */
export interface NotifySettingsSource {
  load(): Promise<NotifySettings>;
  /** Registers a callback run when a relevant setting changes; returns the unsubscribe function. */
  onChange?(listener: () => void): () => void;
}

/** Timeout of a webhook call when the settings do not name one. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** The settings as the environment alone defines them (the defaults under the stored settings). */
export function envNotifySettings(cfg: NotifyConfig): NotifySettings {
  return {
    telegram: { botToken: cfg.telegram.botToken ?? null, chatIds: cfg.telegram.chatIds, apiBase: cfg.telegram.apiBase },
    webhook: { url: cfg.webhook.url ?? null, secret: cfg.webhook.secret ?? null, headers: {}, timeoutMs: DEFAULT_WEBHOOK_TIMEOUT_MS },
    smtp: { url: cfg.smtp.url ?? null, from: cfg.smtp.from ?? null, to: cfg.smtp.to },
    push: { subject: cfg.pushSubject, vapid: null },
    policy: {
      minSeverity: cfg.minSeverity,
      enabledChannels: cfg.channels,
      lifecycleChannels: cfg.channels,
      hiddenTypes: [],
      severityOverrides: {},
      language: cfg.language,
    },
    report: { time: cfg.report.time, timezone: cfg.report.timezone },
    publicUrl: cfg.publicUrl ?? null,
  };
}

/**
 * What the notification policy schema cannot check: the report time zone must be one this daemon's
 * Intl knows (the console's may differ), or the daily report job fails on every tick.
 */
export function checkNotificationPolicy(value: SettingsValue<'notification_policy'>): ValidationIssue[] {
  const zone = value.report_timezone;
  if (zone === null || isIanaTimeZone(zone)) return [];
  return [{ path: 'report_timezone', message: `"${zone}" is not a time zone this server knows; give an IANA name such as Europe/Moscow` }];
}

const NOTIFY_CATEGORIES = new Set(['telegram', 'webhook', 'smtp', 'push', 'notification_policy', 'hidden_types', 'severity_overrides']);

/**
 * Stored settings over the environment: registers the `SAC_*` notification keys as the defaults
 * of the telegram, webhook, smtp, push and notification_policy categories, and reads the
 * effective values (with hidden types and severity overrides) on each load.
 */
export function settingsNotifySource(settings: SettingsService, cfg: NotifyConfig): NotifySettingsSource {
  const env = envNotifySettings(cfg);
  settings.registerEnvDefaults('telegram', () => ({ bot_token: env.telegram.botToken, chat_ids: env.telegram.chatIds, api_base: env.telegram.apiBase }));
  settings.registerEnvDefaults('webhook', () => ({ url: env.webhook.url, secret: env.webhook.secret }));
  settings.registerEnvDefaults('smtp', () => ({ url: env.smtp.url, from: env.smtp.from, to: env.smtp.to }));
  settings.registerEnvDefaults('push', () => ({ subject: env.push.subject }));
  settings.registerEnvDefaults('notification_policy', () => ({
    min_severity: env.policy.minSeverity,
    enabled_channels: env.policy.enabledChannels,
    lifecycle_channels: env.policy.lifecycleChannels,
    language: env.policy.language,
    report_time: env.report.time,
    report_timezone: env.report.timezone,
  }));
  settings.registerCheck('notification_policy', checkNotificationPolicy, 'settings/invalid_time_zone');
  return {
    async load() {
      const [telegram, webhook, smtp, push, policy, hidden, overrides] = await Promise.all([
        settings.get('telegram'),
        settings.get('webhook'),
        settings.get('smtp'),
        settings.get('push'),
        settings.get('notification_policy'),
        settings.get('hidden_types'),
        settings.get('severity_overrides'),
      ]);
      return {
        telegram: { botToken: telegram.bot_token, chatIds: telegram.chat_ids, apiBase: telegram.api_base },
        webhook: { url: webhook.url, secret: webhook.secret, headers: webhook.headers, timeoutMs: webhook.timeout_ms },
        smtp: { url: smtp.url, from: smtp.from, to: smtp.to },
        push: {
          subject: push.subject,
          vapid: push.vapid_public_key && push.vapid_private_key ? { publicKey: push.vapid_public_key, privateKey: push.vapid_private_key } : null,
        },
        policy: {
          minSeverity: policy.min_severity,
          enabledChannels: policy.enabled_channels,
          lifecycleChannels: policy.lifecycle_channels,
          hiddenTypes: hidden.types,
          severityOverrides: overrides.overrides,
          language: policy.language,
        },
        report: { time: policy.report_time, timezone: policy.report_timezone ?? env.report.timezone },
        publicUrl: env.publicUrl,
      };
    },
    onChange(listener) {
      return settings.onChange((category) => {
        if (NOTIFY_CATEGORIES.has(category)) listener();
      });
    },
  };
}
