import { z } from 'zod';
import { DeliveryFilterSchema, NOTIFY_CHANNELS, PushSubscriptionInputSchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { NotifyService } from './notify.service.js';
import { deliveryView, subscriptionView } from './notifications.views.js';

const ById = z.strictObject({ id: z.string().min(1).max(64) });
const Delivery = z.looseObject({ id: z.string(), channel: z.string(), state: z.string() });
const Subscription = z.looseObject({ id: z.string(), endpoint: z.string(), user_id: z.string() });

/**
 * Notifications: the delivery log with "retry now" and the test sends (admin, console only), and
 * push subscriptions of browsers and devices (any signed-in user registers and removes their own;
 * admins list and remove all).
 */
export function notificationsOperations(notify: NotifyService) {
  return [
    defineOperation({
      id: 'notifications.deliveries',
      summary: 'The delivery log',
      role: 'admin',
      method: 'GET',
      input: DeliveryFilterSchema,
      output: z.array(Delivery),
      handler: async (input) => (await notify.listDeliveries(input)).map(deliveryView),
    }),
    defineOperation({
      id: 'notifications.retry',
      summary: 'Retry a delivery now',
      role: 'admin',
      method: 'POST',
      input: ById,
      output: Delivery,
      handler: async (input, caller) => deliveryView(await notify.retryNow(input.id, caller)),
    }),
    defineOperation({
      id: 'notifications.test',
      summary: 'Send a test message on a channel',
      role: 'admin',
      method: 'POST',
      input: z.strictObject({ channel: z.enum(NOTIFY_CHANNELS) }),
      output: z.looseObject({}),
      handler: (input, caller) => notify.testSend(input.channel, caller),
    }),
    defineOperation({
      id: 'notifications.vapidPublicKey',
      summary: 'VAPID public key for push subscriptions',
      role: 'operator',
      scope: 'none',
      method: 'GET',
      path: '/api/v1/push/vapid-public-key',
      output: z.strictObject({ public_key: z.string() }),
      handler: () => ({ public_key: notify.vapidPublicKey() }),
    }),
    defineOperation({
      id: 'notifications.subscribePush',
      summary: 'Register a push subscription',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/push/subscriptions',
      status: 201,
      input: PushSubscriptionInputSchema,
      output: Subscription,
      handler: async (input, caller) => subscriptionView(await notify.registerPushSubscription(input, caller.user.id)),
    }),
    defineOperation({
      id: 'notifications.pushSubscriptions',
      summary: 'List push subscriptions',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/push/subscriptions',
      envelope: 'subscriptions',
      output: z.array(Subscription),
      handler: async () => (await notify.listPushSubscriptions()).map(subscriptionView),
    }),
    defineOperation({
      id: 'notifications.unsubscribePush',
      summary: 'Remove a push subscription (one’s own; admins any)',
      role: 'operator',
      scope: 'none',
      method: 'DELETE',
      path: '/api/v1/push/subscriptions/{id}',
      status: 204,
      input: ById,
      output: z.strictObject({ deleted: z.literal(true) }),
      handler: async (input, caller) => {
        await notify.removePushSubscription(input.id, caller.user);
        return { deleted: true as const };
      },
    }),
  ];
}
