import type { DeviceTokens, DeviceView } from '../../../../shared/src/index';
import { requestJson } from '../api/http';
import { call, trpc } from '../api/trpc';
import type { PushSubscriptionJson } from './pwa';

/**
 * The phone's own calls. Enrolment, token refresh and a device's push subscription are REST only
 * (the device endpoints: no session yet, or a device session), typed by the shared schemas; the
 * rest goes through the console's typed tRPC client.
 */
export const mobileApi = {
  /** SAC's version (the web build is served by SAC itself, so it is the app's version). */
  health: () => requestJson<{ version?: string }>('GET', 'health', { auth: false }),
  enroll: (body: { code: string; name: string; platform: string; app_version: string | undefined; device_uuid: string }) =>
    requestJson<DeviceTokens>('POST', 'api/v1/mobile/enroll', { body, auth: false }),
  refresh: (refresh_token: string, app_version: string | undefined) =>
    requestJson<DeviceTokens>('POST', 'api/v1/mobile/token', { body: { refresh_token, app_version }, auth: false }),
  setDevicePush: (push: PushSubscriptionJson) => requestJson<{ device: DeviceView }>('PUT', 'api/v1/mobile/push', { body: { push } }),
  vapidPublicKey: () => call(() => trpc.notifications.vapidPublicKey.query()),
  subscribePush: (sub: PushSubscriptionJson, label: string) => call(() => trpc.notifications.subscribePush.mutate({ ...sub, label })),
};
