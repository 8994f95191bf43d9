import express from 'express';
import { sendJson } from '../http/index.js';
import type { TelegramUpdate } from './telegram.bot.js';
import type { TelegramService } from './telegram.service.js';

/**
 * Webhook mode only (SAC_PUBLIC_URL is https): `POST /api/v1/telegram/webhook`, which Telegram calls
 * with `X-Telegram-Bot-Api-Secret-Token`; a wrong token is 401.
 */
export function createTelegramWebhookRoutes(telegram: TelegramService, secretToken: string): express.Router {
  const r = express.Router();
  r.post('/api/v1/telegram/webhook', async (req, res) => {
    await telegram.handleWebhook(req.body as TelegramUpdate, req.header('x-telegram-bot-api-secret-token'), secretToken);
    sendJson(res, 200, { ok: true });
  });
  return r;
}
