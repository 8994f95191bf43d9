/**
 * The installable web app: service worker registration (web build only) and Web Push
 * subscription. The worker itself is `public/sw.js`.
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  // `updateViaCache: 'none'`: a new sw.js is picked up at once, whatever the HTTP cache says.
  void navigator.serviceWorker.register(new URL('sw.js', document.baseURI), { scope: new URL('.', document.baseURI).pathname, updateViaCache: 'none' }).catch(() => undefined);
}

export function pushSupport(): 'ok' | 'unsupported' {
  return 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined' && window.isSecureContext ? 'ok' : 'unsupported';
}

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.length) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

export interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

function asJson(sub: PushSubscription): PushSubscriptionJson {
  const json = sub.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
  return { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } };
}

export async function currentPushSubscription(): Promise<PushSubscriptionJson | null> {
  if (pushSupport() !== 'ok') return null;
  const reg = await navigator.serviceWorker.getRegistration();
  const sub = await reg?.pushManager.getSubscription();
  return sub ? asJson(sub) : null;
}

/** Subscribes this browser with SAC's VAPID public key; null when notifications are not permitted. */
export async function subscribeToPush(vapidPublicKey: string): Promise<PushSubscriptionJson | null> {
  if ((await Notification.requestPermission()) !== 'granted') return null;
  const reg = await navigator.serviceWorker.ready;
  const key = keyBytes(vapidPublicKey);
  const existing = await reg.pushManager.getSubscription();
  if (existing && sameBytes(existing.options.applicationServerKey, key)) return asJson(existing);
  // A subscription made with other VAPID keys cannot carry SAC's messages.
  if (existing) await existing.unsubscribe();
  return asJson(await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }));
}
