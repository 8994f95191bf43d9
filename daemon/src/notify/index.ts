/**
 * Notifications: channel clients (Telegram Bot API, webhook, SMTP, web push), the
 * routing policy, message formats in English and Russian, the durable outbox with its dispatcher,
 * push subscriptions and test sends. Other folders import only from here.
 */
export { NotifyService, subscribeNotify, type TestSendResult } from './notify.service.js';
export { channelSenders, type ChannelDeliveries, type ChannelSender, type ChannelSenders } from './channel-sender.js';
export { settingsNotifySource, type NotifySettingsSource } from './notify.settings.js';
export { escapeHtml } from './notify.format.js';
export { factNotificationRows, type EventNotifyPlan } from './notify.ingest.js';
export { phrases } from './notify.i18n.js';
export { dueReportDay } from './notify.rules.js';
export type { NotifySettings } from './notify.types.js';
export type { InlineButton } from './telegram.client.js';
export { notificationsOperations } from './notifications.operations.js';
