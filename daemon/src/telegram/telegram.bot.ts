import type { InlineButton } from '../notify/index.js';

/** Where the Bot API is and with which token; the token appears only in request paths. */
export interface BotConfig {
  apiBase: string;
  botToken: string;
  timeoutMs: number;
}

/** The parts of a Bot API update SAC reads. */
export interface TelegramUpdate {
  update_id: number;
  message?: { message_id: number; chat: { id: number | string }; from?: TelegramFrom; text?: string };
  callback_query?: {
    id: string;
    from: TelegramFrom;
    data?: string;
    message?: { message_id: number; chat: { id: number | string }; text?: string };
  };
}

export interface TelegramFrom {
  id: number;
  username?: string;
  first_name?: string;
}

/** A Bot API call that failed; the message never contains the token. */
export class BotApiError extends Error {}

/** Calls one Bot API method with a JSON body and returns its `result`. */
export async function botCall<T>(cfg: BotConfig, method: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  const url = `${cfg.apiBase.replace(/\/+$/, '')}/bot${cfg.botToken}/${method}`;
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new BotApiError(`Telegram ${method}: ${(err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError' ? 'aborted' : 'unreachable'}`);
  }
  const text = await res.text();
  let parsed: { ok?: boolean; result?: T; description?: string } = {};
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // not JSON: reported below by status
  }
  if (!res.ok || parsed.ok !== true) throw new BotApiError(`Telegram ${method} answered ${res.status}${parsed.description ? `: ${parsed.description.slice(0, 200)}` : ''}`);
  return parsed.result as T;
}

export const getUpdates = (cfg: BotConfig, offset: number, timeoutS: number, signal?: AbortSignal) =>
  botCall<TelegramUpdate[]>({ ...cfg, timeoutMs: cfg.timeoutMs + timeoutS * 1000 }, 'getUpdates', { offset, timeout: timeoutS, allowed_updates: ['message', 'callback_query'] }, signal);

export const answerCallbackQuery = (cfg: BotConfig, id: string, text: string) =>
  botCall<boolean>(cfg, 'answerCallbackQuery', { callback_query_id: id, text: text.slice(0, 200), show_alert: false });

export const editMessageText = (cfg: BotConfig, chatId: number | string, messageId: number, html: string, keyboard: InlineButton[][]) =>
  botCall<unknown>(cfg, 'editMessageText', {
    chat_id: chatId,
    message_id: messageId,
    text: html,
    parse_mode: 'HTML',
    disable_web_page_preview: true,
    reply_markup: { inline_keyboard: keyboard },
  });

export const sendText = (cfg: BotConfig, chatId: number | string, text: string) => botCall<unknown>(cfg, 'sendMessage', { chat_id: chatId, text });

export const sendButtons = (cfg: BotConfig, chatId: number | string, html: string, keyboard: InlineButton[][]) =>
  botCall<unknown>(cfg, 'sendMessage', { chat_id: chatId, text: html, parse_mode: 'HTML', disable_web_page_preview: true, reply_markup: { inline_keyboard: keyboard } });

/** The Bot API calls the Telegram service makes: the real ones in `telegramBotApi`, fakes in tests. */
export interface TelegramBotApi {
  getUpdates(cfg: BotConfig, offset: number, timeoutS: number, signal?: AbortSignal): Promise<TelegramUpdate[]>;
  answerCallbackQuery(cfg: BotConfig, id: string, text: string): Promise<unknown>;
  editMessageText(cfg: BotConfig, chatId: number | string, messageId: number, html: string, keyboard: InlineButton[][]): Promise<unknown>;
  sendText(cfg: BotConfig, chatId: number | string, text: string): Promise<unknown>;
  /** An HTML message with inline buttons (an approval request to one approver). */
  sendButtons(cfg: BotConfig, chatId: number | string, html: string, keyboard: InlineButton[][]): Promise<unknown>;
}

export const telegramBotApi: TelegramBotApi = { getUpdates, answerCallbackQuery, editMessageText, sendText, sendButtons };

export const setWebhook = (cfg: BotConfig, url: string, secretToken: string) =>
  botCall<boolean>(cfg, 'setWebhook', { url, secret_token: secretToken, allowed_updates: ['message', 'callback_query'] });
