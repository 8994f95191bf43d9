import express from 'express';
import { type Authenticator, currentUser, requireUser, restActor, sendJson } from '../http/index.js';
import type { TelegramUpdate } from './telegram.bot.js';
import type { TelegramService } from './telegram.service.js';

/**
 * Telegram link of one's own account: `GET /api/v1/auth/telegram`, `POST /api/v1/auth/telegram/link-code`
 * (201, the one-time code to send the bot), `DELETE /api/v1/auth/telegram`.
 */
export function createTelegramRoutes(telegram: TelegramService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  r.get('/api/v1/auth/telegram', operator, async (_req, res) => {
    sendJson(res, 200, await telegram.status(currentUser(res)));
  });
  r.post('/api/v1/auth/telegram/link-code', operator, async (req, res) => {
    sendJson(res, 201, await telegram.createLinkCode(currentUser(res), restActor(req, res)));
  });
  r.delete('/api/v1/auth/telegram', operator, async (req, res) => {
    sendJson(res, 200, await telegram.unlink(currentUser(res), restActor(req, res)));
  });
  return r;
}

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
