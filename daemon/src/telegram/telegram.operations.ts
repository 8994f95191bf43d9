import { z } from 'zod';
import { defineOperation } from '../http/index.js';
import type { TelegramService } from './telegram.service.js';

const LinkStatus = z.looseObject({ linked: z.boolean() });

/** One's own Telegram link (any signed-in user): status, a one-time code to send the bot, unlink. */
export function telegramOperations(telegram: TelegramService) {
  return [
    defineOperation({
      id: 'telegram.status',
      summary: 'Whether one’s account is linked to Telegram',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      path: '/api/v1/auth/telegram',
      output: LinkStatus,
      handler: (_input, caller) => telegram.status(caller.user),
    }),
    defineOperation({
      id: 'telegram.createLinkCode',
      summary: 'A one-time code to send the bot (`/link <code>`)',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/auth/telegram/link-code',
      status: 201,
      output: z.looseObject({ code: z.string() }),
      handler: (_input, caller) => telegram.createLinkCode(caller.user, caller),
    }),
    defineOperation({
      id: 'telegram.unlink',
      summary: 'Unlink one’s Telegram account',
      role: 'operator',
      scope: 'none',
      method: 'DELETE',
      path: '/api/v1/auth/telegram',
      output: LinkStatus,
      handler: (_input, caller) => telegram.unlink(caller.user, caller),
    }),
  ];
}
