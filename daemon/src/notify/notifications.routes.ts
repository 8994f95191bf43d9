import express from 'express';
import { PushSubscriptionInputSchema } from '../../../shared/src/index.js';
import { type Authenticator, currentUser, parseInput, requireUser, sendJson } from '../http/index.js';
import type { NotifyService } from './notify.service.js';
import { subscriptionView } from './notifications.views.js';

/**
 * Push subscription registration for browsers and devices: `GET /api/v1/push/vapid-public-key`,
 * `POST /api/v1/push/subscriptions` (any user; 201), `GET /api/v1/push/subscriptions` (admin),
 * `DELETE /api/v1/push/subscriptions/{id}` (own, or any for admins; 204).
 */
export function createNotificationsRoutes(notify: NotifyService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/push/vapid-public-key', operator, (_req, res) => {
    sendJson(res, 200, { public_key: notify.vapidPublicKey() });
  });
  r.post('/api/v1/push/subscriptions', operator, async (req, res) => {
    const input = parseInput(PushSubscriptionInputSchema, req.body);
    sendJson(res, 201, subscriptionView(await notify.registerPushSubscription(input, currentUser(res).id)));
  });
  r.get('/api/v1/push/subscriptions', admin, async (_req, res) => {
    sendJson(res, 200, { subscriptions: (await notify.listPushSubscriptions()).map(subscriptionView) });
  });
  r.delete('/api/v1/push/subscriptions/:id', operator, async (req, res) => {
    await notify.removePushSubscription(String(req.params.id), currentUser(res));
    res.status(204).end();
  });
  return r;
}
