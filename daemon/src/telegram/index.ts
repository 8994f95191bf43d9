/**
 * Telegram back-channel: account links by one-time code, and problem buttons (Acknowledge,
 * Resolve) applied as the linked user — updates by long polling or, with a public https URL, by webhook.
 */
export { TelegramService } from './telegram.service.js';
export { setWebhook, telegramBotApi, type TelegramBotApi } from './telegram.bot.js';
export { createTelegramWebhookRoutes } from './telegram.routes.js';
export { telegramOperations } from './telegram.operations.js';
