import { z } from 'zod';
import { DeliveryFilterSchema, NOTIFY_CHANNELS, PushSubscriptionInputSchema } from '../../../shared/src/index.js';
import type { NotifyService } from './notify.service.js';
import { deliveryView, subscriptionView } from './notifications.views.js';
import { adminProcedure, operatorProcedure, router } from '../http/index.js';

const ById = z.strictObject({ id: z.string().min(1).max(64) });

/**
 * tRPC `notifications.*`: the delivery log with "retry now" and the test sends (admin), push
 * subscription registration for browsers and devices (any signed-in user).
 */
export function notificationsRouter(notify: NotifyService) {
  return router({
    deliveries: adminProcedure
      .input(DeliveryFilterSchema.optional())
      .query(async ({ input }) => (await notify.listDeliveries(DeliveryFilterSchema.parse(input ?? {}))).map(deliveryView)),
    retry: adminProcedure.input(ById).mutation(async ({ input, ctx }) => deliveryView(await notify.retryNow(input.id, ctx))),
    test: adminProcedure
      .input(z.strictObject({ channel: z.enum(NOTIFY_CHANNELS) }))
      .mutation(({ input, ctx }) => notify.testSend(input.channel, ctx)),
    vapidPublicKey: operatorProcedure.query(() => ({ public_key: notify.vapidPublicKey() })),
    subscribePush: operatorProcedure
      .input(PushSubscriptionInputSchema)
      .mutation(async ({ input, ctx }) => subscriptionView(await notify.registerPushSubscription(input, ctx.user.id))),
    unsubscribePush: operatorProcedure.input(ById).mutation(async ({ input, ctx }) => {
      await notify.removePushSubscription(input.id, ctx.user);
      return { deleted: true };
    }),
    pushSubscriptions: adminProcedure.query(async () => (await notify.listPushSubscriptions()).map(subscriptionView)),
  });
}
