import { NOTIFY_CHANNELS, type NotifyChannel } from '../../../../../shared/src/notify.schema';
import type { SettingsView } from '../../../../../shared/src/settings.schema';

const isSet = (v: unknown) => (v as { set?: boolean } | null | undefined)?.set === true;
const filled = (v: unknown) => (Array.isArray(v) ? v.length > 0 : typeof v === 'string' && v.length > 0);

/**
 * Channels whose settings are complete enough to send (effective values: stored or from the
 * environment): a bot token and a chat, a webhook URL, an SMTP server with sender and recipients,
 * VAPID keys.
 */
export function configuredChannels(views: readonly SettingsView[], pushSubscriptions: number | null = null): Set<NotifyChannel> {
  const values = (c: string) => views.find((v) => v.category === c)?.values ?? {};
  const out = new Set<NotifyChannel>();
  const tg = values('telegram');
  if (isSet(tg.bot_token) && filled(tg.chat_ids)) out.add('telegram');
  if (filled(values('webhook').url)) out.add('webhook');
  const smtp = values('smtp');
  if (isSet(smtp.url) && filled(smtp.from) && filled(smtp.to)) out.add('smtp');
  const push = values('push');
  // VAPID keys are generated on first start: push sends only once a browser or phone subscribed.
  if (filled(push.vapid_public_key) && isSet(push.vapid_private_key) && pushSubscriptions !== 0) out.add('push');
  return out;
}

function enabledChannels(views: readonly SettingsView[]): NotifyChannel[] {
  const enabled = views.find((v) => v.category === 'notification_policy')?.values.enabled_channels;
  return Array.isArray(enabled) ? (enabled as NotifyChannel[]).filter((c) => (NOTIFY_CHANNELS as readonly string[]).includes(c)) : [];
}

/** Channels the notification policy turns on that cannot send (`pushSubscriptions`: how many push subscriptions exist, when known). */
export function enabledButUnconfigured(views: readonly SettingsView[], pushSubscriptions: number | null = null): NotifyChannel[] {
  const ready = configuredChannels(views, pushSubscriptions);
  return enabledChannels(views).filter((c) => !ready.has(c));
}

/** Channels that can deliver an alert now: turned on by the policy and configured. */
export function deliverableChannels(views: readonly SettingsView[], pushSubscriptions: number | null = null): NotifyChannel[] {
  const ready = configuredChannels(views, pushSubscriptions);
  return enabledChannels(views).filter((c) => ready.has(c));
}
