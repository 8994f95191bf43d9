import { bodySnippet, DeliveryError, isRetryableStatus, networkFailure } from './delivery-error.js';

export interface TelegramConfig {
  /** e.g. https://api.telegram.org, or a self-hosted Bot API server. */
  apiBase: string;
  botToken: string;
  timeoutMs: number;
}

/** Telegram's hard limit for one message. */
export const TELEGRAM_MAX_LENGTH = 4096;

/**
 * Bot API `sendMessage` with HTML parse mode. Throws DeliveryError: permanent for 400/401/403/404
 * (bad token, unknown chat, malformed text), with `retryAfterMs` from `parameters.retry_after` on 429.
 * The token appears only in the request path, never in an error message.
 */
/** An inline keyboard button: a callback (pressed in the chat, delivered as an update) or a link. */
export type InlineButton = { text: string; callback_data: string } | { text: string; url: string };

export async function sendTelegramMessage(cfg: TelegramConfig, chatId: string, html: string, keyboard?: InlineButton[][]): Promise<void> {
  const url = `${cfg.apiBase.replace(/\/+$/, '')}/bot${cfg.botToken}/sendMessage`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        chat_id: chatId,
        text: html,
        parse_mode: 'HTML',
        disable_web_page_preview: true,
        ...(keyboard && keyboard.length > 0 ? { reply_markup: { inline_keyboard: keyboard } } : {}),
      }),
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
  } catch (err) {
    throw networkFailure(err, 'Telegram API unreachable');
  }
  if (res.ok) {
    await res.arrayBuffer();
    return;
  }
  let description = '';
  let retryAfter: number | null = null;
  const text = await bodySnippet(res, 1000);
  try {
    const body = JSON.parse(text) as { description?: string; parameters?: { retry_after?: number } };
    description = body.description ?? '';
    if (typeof body.parameters?.retry_after === 'number') retryAfter = body.parameters.retry_after;
  } catch {
    description = text.slice(0, 200);
  }
  if (retryAfter === null && res.status === 429) retryAfter = Number(res.headers.get('retry-after')) || null;
  throw new DeliveryError(`Telegram answered ${res.status}${description ? `: ${description}` : ''}`, {
    status: res.status,
    permanent: !isRetryableStatus(res.status),
    retryAfterMs: retryAfter === null ? null : retryAfter * 1000,
  });
}
