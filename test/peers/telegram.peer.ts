import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './util.js';

export interface TelegramCall {
  at: number;
  chat_id: string;
  text: string;
  parse_mode: string;
}

type Planned = { status: number; retry_after?: number; description?: string };

/**
 * A loopback server shaped like the Telegram Bot API: `POST /bot<token>/sendMessage` records the
 * call and answers `{ ok: true }`; planned failures (e.g. 429 with `parameters.retry_after`) are
 * answered first, in order; `down` answers 502 to everything; `delayMs` slows every answer and
 * `maxInFlight` records the most requests it had open at once.
 */
export async function startTelegramPeer(token: string) {
  const calls: TelegramCall[] = [];
  const rejected: { at: number; status: number }[] = [];
  const plan: Planned[] = [];
  const state = { down: false, delayMs: 0, inFlight: 0, maxInFlight: 0 };
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
    const reply = (status: number, json: unknown) => {
      state.inFlight--;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.method !== 'POST' || req.url !== `/bot${token}/sendMessage`) return reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
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
    const msg = JSON.parse(body.toString('utf8')) as { chat_id: string; text: string; parse_mode: string };
    if (msg.parse_mode !== 'HTML' || !msg.text) return reply(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    calls.push({ at: Date.now(), chat_id: String(msg.chat_id), text: msg.text, parse_mode: msg.parse_mode });
    reply(200, { ok: true, result: { message_id: calls.length, chat: { id: msg.chat_id }, text: msg.text } });
  });
  const url = await listen(server);
  return { url, calls, rejected, plan, state, close: () => closeServer(server) };
}
export type TelegramPeer = Awaited<ReturnType<typeof startTelegramPeer>>;
