import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { DeviceTokens, DeviceView, SessionUser } from '../../../../shared/src/index';
import { ApiError, onUnauthorized, session } from '../api/http';
import { useAuthStore } from '../features/auth/auth.store';
import { deviceStore } from './device-store';
import { mobileApi } from './mobile.api';
import { currentPushSubscription, pushSupport, subscribeToPush } from './pwa';

/** Renew this long before the access token expires. */
const RENEW_MARGIN_MS = 60_000;
const REFRESH_LOCK = 'sac-mobile-refresh';

/** Runs `work` alone among this origin's tabs, so two tabs never spend one refresh token twice. */
async function exclusively<T>(work: () => Promise<T>): Promise<T> {
  if (!navigator.locks) return work();
  return (await navigator.locks.request(REFRESH_LOCK, work)) as T;
}

let version: Promise<string | undefined> | null = null;

/** The app version a device reports: the web build is served by SAC itself, so it is SAC's version. */
function appVersion(): Promise<string | undefined> {
  version ??= mobileApi.health().then(
    (h) => h.version,
    () => {
      version = null;
      return undefined;
    },
  );
  return version;
}

/**
 * The mobile client's session: an enrolled device (access token in memory, rotating refresh
 * token in IndexedDB), or else the console sign-in of the same browser, which works on a phone
 * too. `mode` is `none` when neither exists.
 */
export const useMobileSession = defineStore('mobileSession', () => {
  const mode = ref<'device' | 'console' | 'none'>('none');
  const user = ref<SessionUser | null>(null);
  const device = ref<DeviceView | null>(null);
  const ended = ref(false);
  const pushOn = ref(false);
  let timer: ReturnType<typeof setTimeout> | null = null;
  let starting: Promise<void> | null = null;

  const signedIn = computed(() => mode.value !== 'none');

  function schedule(expiresInS: number) {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void renew(), Math.max(5_000, expiresInS * 1000 - RENEW_MARGIN_MS));
  }

  async function accept(tokens: DeviceTokens) {
    await deviceStore.set('refresh_token', tokens.refresh_token);
    session.set(tokens.access_token);
    user.value = { ...tokens.user, device_id: tokens.device.id };
    device.value = tokens.device;
    mode.value = 'device';
    ended.value = false;
    pushOn.value = tokens.device.push;
    schedule(tokens.expires_in);
  }

  /** Exchanges the stored refresh token for a new pair; false (and signed out) when the server refuses it. */
  async function renew(): Promise<boolean> {
    return exclusively(async () => {
      const refresh = await deviceStore.get('refresh_token');
      if (!refresh) return false;
      try {
        await accept(await mobileApi.refresh(refresh, await appVersion()));
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          await forget(true);
          return false;
        }
        // Unreachable: keep the refresh token and try again in a minute.
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => void renew(), 60_000);
        throw err;
      }
    });
  }

  /** Resumes the device session (or the console's); rejects when the server cannot be reached (the timer retries). */
  async function start(): Promise<void> {
    starting ??= (async () => {
      if ((await deviceStore.get('refresh_token')) && (await renew())) return;
      const auth = useAuthStore();
      if (auth.signedIn || (await auth.restore())) {
        mode.value = 'console';
        user.value = auth.user;
        pushOn.value = (await currentPushSubscription()) !== null;
      } else {
        // Nobody yet: ask again next time (after an enrollment or a sign-in).
        starting = null;
      }
    })().catch((err: unknown) => {
      starting = null;
      throw err;
    });
    return starting;
  }

  async function enroll(code: string, name: string): Promise<void> {
    const tokens = await mobileApi.enroll({ code, name, platform: platformName(), app_version: await appVersion(), device_uuid: await deviceStore.deviceUuid() });
    await accept(tokens);
    starting = Promise.resolve();
  }

  /** Asks for permission, subscribes with SAC's VAPID key and registers the subscription for this device (or console user). */
  async function enablePush(): Promise<'enabled' | 'denied' | 'unsupported'> {
    if (pushSupport() !== 'ok') return 'unsupported';
    const { public_key } = await mobileApi.vapidPublicKey();
    const sub = await subscribeToPush(public_key);
    if (!sub) return 'denied';
    if (mode.value === 'device') {
      device.value = (await mobileApi.setDevicePush(sub)).device;
    } else {
      await mobileApi.subscribePush(sub, 'phone (console sign-in)');
    }
    pushOn.value = true;
    return 'enabled';
  }

  async function forget(byServer = false) {
    if (timer) clearTimeout(timer);
    timer = null;
    await deviceStore.set('refresh_token', null);
    if (mode.value === 'device') session.set(null);
    mode.value = 'none';
    user.value = null;
    device.value = null;
    ended.value = byServer;
    starting = null;
  }

  onUnauthorized(() => {
    if (mode.value === 'device') void renew().catch(() => undefined);
  });

  return { mode, user, device, ended, pushOn, signedIn, start, enroll, renew, enablePush, forget };
});

function platformName(): string {
  const ua = navigator.userAgent;
  if (/android/i.test(ua)) return 'android';
  if (/iphone|ipad|ipod/i.test(ua)) return 'ios';
  return 'web';
}

/** A readable default name for this phone. */
export function defaultDeviceName(): string {
  const p = platformName();
  return p === 'android' ? 'Android phone' : p === 'ios' ? 'iPhone' : 'Browser';
}
