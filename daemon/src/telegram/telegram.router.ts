import { operatorProcedure, router } from '../http/index.js';
import type { TelegramService } from './telegram.service.js';

/** tRPC `telegram.*`: one's own Telegram link (status, a one-time link code, unlink). */
export function telegramRouter(telegram: TelegramService) {
  return router({
    status: operatorProcedure.query(({ ctx }) => telegram.status(ctx.user)),
    createLinkCode: operatorProcedure.mutation(({ ctx }) => telegram.createLinkCode(ctx.user, ctx)),
    unlink: operatorProcedure.mutation(({ ctx }) => telegram.unlink(ctx.user, ctx)),
  });
}
