import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './util.js';

export interface TelegramCall {
  at: number;
  chat_id: string;
  text: string;
  parse_mode: string;
  /** The inline keyboard sent with the message, if any. */
  reply_markup?: { inline_keyboard: ({ text: string; callback_data?: string; url?: string })[][] };
  message_id: number;
}

/** An update as the Bot API hands it out (only what SAC reads). */
export type PeerUpdate = Record<string, unknown> & { update_id: number };

type Planned = { status: number; retry_after?: number; description?: string };

/**
 * A loopback server shaped like the Telegram Bot API: `POST /bot<token>/sendMessage` records the
 * call and answers `{ ok: true }`; planned failures (e.g. 429 with `parameters.retry_after`) are
 * answered first, in order; `down` answers 502 to everything; `delayMs` slows every answer and
 * `maxInFlight` records the most requests it had open at once.
 * The way back: `pushUpdate()` queues an update (a button press, a message) that `getUpdates`
 * hands out by `offset` (long polling up to `timeout` seconds, like Telegram);
 * `answerCallbackQuery`, `editMessageText` and `setWebhook` are recorded in `answers`, `edits`, `webhooks`.
 */
export async function startTelegramPeer(token: string) {
  const calls: TelegramCall[] = [];
  const rejected: { at: number; status: number }[] = [];
  const plan: Planned[] = [];
  const updates: PeerUpdate[] = [];
  const polls: { offset: number; timeout: number }[] = [];
  const answers: { callback_query_id: string; text: string }[] = [];
  const edits: { chat_id: string; message_id: number; text: string; reply_markup?: TelegramCall['reply_markup'] }[] = [];
  const webhooks: { url: string; secret_token: string }[] = [];
  let waiters: (() => void)[] = [];
  let nextUpdateId = 1000;
  const state = { down: false, delayMs: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    // The way back (getUpdates and friends) is served first and kept out of the delivery
    // bookkeeping below (in-flight count, planned failures, down): those describe sendMessage.
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const method = req.method === 'POST' && req.url?.startsWith(`/bot${token}/`) ? req.url.slice(`/bot${token}/`.length) : null;
    if (method === 'getUpdates') {
      const q = JSON.parse(body.toString('utf8') || '{}') as { offset?: number; timeout?: number };
      const offset = q.offset ?? 0;
      polls.push({ offset, timeout: q.timeout ?? 0 });
      const pending = () => updates.filter((u) => u.update_id >= offset);
      if (pending().length === 0 && (q.timeout ?? 0) > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, (q.timeout ?? 0) * 1000);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return answer(200, { ok: true, result: pending() });
    }
    if (method === 'answerCallbackQuery') {
      const q = JSON.parse(body.toString('utf8')) as { callback_query_id: string; text: string };
      answers.push({ callback_query_id: q.callback_query_id, text: q.text });
      return answer(200, { ok: true, result: true });
    }
    if (method === 'editMessageText') {
      const q = JSON.parse(body.toString('utf8')) as { chat_id: string; message_id: number; text: string; reply_markup?: TelegramCall['reply_markup'] };
      edits.push({ chat_id: String(q.chat_id), message_id: q.message_id, text: q.text, reply_markup: q.reply_markup });
      return answer(200, { ok: true, result: { message_id: q.message_id } });
    }
    if (method === 'setWebhook') {
      const q = JSON.parse(body.toString('utf8')) as { url: string; secret_token: string };
      webhooks.push(q);
      return answer(200, { ok: true, result: true });
    }
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    const reply = (status: number, json: unknown) => {
      state.inFlight--;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (method !== 'sendMessage') return reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const planned = state.down ? { status: 502, description: 'Bad Gateway' } : plan.shift();
    if (planned) {
      rejected.push({ at: Date.now(), status: planned.status });
      return reply(planned.status, {
        ok: false,
        error_code: planned.status,
        description: planned.description ?? `Too Many Requests: retry after ${planned.retry_after}`,
        ...(planned.retry_after !== undefined ? { parameters: { retry_after: planned.retry_after } } : {}),
      });
    }
    const msg = JSON.parse(body.toString('utf8')) as { chat_id: string; text: string; parse_mode?: string; reply_markup?: TelegramCall['reply_markup'] };
    if (!msg.text) return reply(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    const messageId = calls.length + 1;
    calls.push({ at: Date.now(), chat_id: String(msg.chat_id), text: msg.text, parse_mode: msg.parse_mode ?? '', reply_markup: msg.reply_markup, message_id: messageId });
    reply(200, { ok: true, result: { message_id: messageId, chat: { id: msg.chat_id }, text: msg.text } });
  });
  const url = await listen(server);
  /** Queues an update for getUpdates (its update_id is assigned) and wakes a waiting long poll. */
  const pushUpdate = (update: Record<string, unknown>): number => {
    const id = nextUpdateId++;
    updates.push({ ...update, update_id: id });
    const wake = waiters;
    waiters = [];
    for (const w of wake) w();
    return id;
  };
  return {
    url,
    calls,
    rejected,
    plan,
    state,
    updates,
    polls,
    answers,
    edits,
    webhooks,
    pushUpdate,
    close: () => {
      for (const w of waiters) w();
      return closeServer(server);
    },
  };
}
export type TelegramPeer = Awaited<ReturnType<typeof startTelegramPeer>>;
