import webpush from 'web-push';
import { bodySnippet, DeliveryError, isRetryableStatus, networkFailure } from './delivery-error.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushConfig {
  vapid: VapidKeys;
  /** `mailto:` or `https:` contact put into the VAPID token. */
  subject: string;
  timeoutMs: number;
  /** Seconds the push service keeps an undelivered message. */
  ttlSeconds: number;
}

/** A fresh VAPID key pair (P-256), URL-safe base64. */
export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

/**
 * Encrypts the payload (aes128gcm) and signs the VAPID token with web-push, then POSTs it.
 * 404/410 mean the subscription is gone: a permanent DeliveryError with that status.
 */
export async function sendPush(cfg: PushConfig, target: PushTarget, payload: string): Promise<void> {
  const details = webpush.generateRequestDetails(target, payload, {
    vapidDetails: { subject: cfg.subject, publicKey: cfg.vapid.publicKey, privateKey: cfg.vapid.privateKey },
    contentEncoding: 'aes128gcm',
    TTL: cfg.ttlSeconds,
  });
  let res: Response;
  try {
    res = await fetch(details.endpoint, {
      method: details.method,
      headers: details.headers as Record<string, string>,
      body: details.body,
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
  } catch (err) {
    throw networkFailure(err, 'push service unreachable');
  }
  if (res.status >= 200 && res.status < 300) {
    await res.arrayBuffer();
    return;
  }
  const snippet = await bodySnippet(res);
  throw new DeliveryError(`push service answered ${res.status}${snippet ? `: ${snippet}` : ''}`, {
    status: res.status,
    permanent: !isRetryableStatus(res.status),
  });
}
