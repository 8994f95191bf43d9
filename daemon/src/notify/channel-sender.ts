import type { NotifyChannel } from '../../../shared/src/index.js';
import { sendPush, type PushConfig, type PushTarget } from './push.client.js';
import type { PushEndpointPolicy } from './push.policy.js';
import { sendMail, type MailContent, type SmtpConfig } from './smtp.client.js';
import { sendTelegramMessage, type InlineButton, type TelegramConfig } from './telegram.client.js';
import { postWebhook, type WebhookConfig } from './webhook.client.js';

/** What one channel is handed for one delivery: the peer's settings, the recipient and the formatted message. */
export interface ChannelDeliveries {
  telegram: { config: TelegramConfig; chatId: string; html: string; keyboard: InlineButton[][] };
  webhook: { config: WebhookConfig; body: unknown };
  smtp: { config: SmtpConfig; mail: MailContent };
  push: { config: PushConfig; target: PushTarget; payload: string };
}

/**
 * The transport of one notification channel. `send` resolves when the peer took the message and
 * otherwise throws a DeliveryError: permanent (not retried) or retryable, with the wait the peer asked for.
 */
export interface ChannelSender<C extends NotifyChannel> {
  send(delivery: ChannelDeliveries[C]): Promise<void>;
}

/** One sender per channel: what the dispatcher delivers through. */
export type ChannelSenders = { [C in NotifyChannel]: ChannelSender<C> };

/** The real transports: the Telegram Bot API, the webhook POST, SMTP, and Web Push to endpoints `pushPolicy` allows. */
export function channelSenders(pushPolicy: PushEndpointPolicy): ChannelSenders {
  return {
    telegram: { send: (d) => sendTelegramMessage(d.config, d.chatId, d.html, d.keyboard) },
    webhook: { send: (d) => postWebhook(d.config, d.body) },
    smtp: { send: (d) => sendMail(d.config, d.mail) },
    push: { send: (d) => sendPush(d.config, d.target, d.payload, pushPolicy) },
  };
}
