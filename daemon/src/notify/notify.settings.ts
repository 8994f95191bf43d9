import type { NotifyConfig } from '../config.js';
import type { NotifySettings } from './notify.types.js';

/** Where the notifier reads its effective channel and policy settings (stored settings over the environment). */
export interface NotifySettingsSource {
  load(): Promise<NotifySettings>;
  /** Registers a callback run when a relevant setting changes; returns the unsubscribe function. */
  onChange?(listener: () => void): () => void;
}

/** Timeout of a webhook call when the settings do not name one. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** The settings as the environment alone defines them. */
export function envNotifySettings(cfg: NotifyConfig): NotifySettings {
  return {
    telegram: { botToken: cfg.telegram.botToken ?? null, chatIds: cfg.telegram.chatIds, apiBase: cfg.telegram.apiBase },
    webhook: { url: cfg.webhook.url ?? null, secret: cfg.webhook.secret ?? null, headers: {}, timeoutMs: DEFAULT_WEBHOOK_TIMEOUT_MS },
    smtp: { url: cfg.smtp.url ?? null, from: cfg.smtp.from ?? null, to: cfg.smtp.to },
    push: { subject: cfg.pushSubject },
    policy: {
      minSeverity: cfg.minSeverity,
      enabledChannels: cfg.channels,
      lifecycleChannels: cfg.channels,
      hiddenTypes: [],
      language: cfg.language,
    },
    report: { time: cfg.report.time, timezone: cfg.report.timezone },
  };
}

/** A source that always answers the environment's settings. */
export function envSettingsSource(cfg: NotifyConfig): NotifySettingsSource {
  const settings = envNotifySettings(cfg);
  return { load: async () => settings };
}
