import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import webpush from 'web-push';
import { DeliveryError, isRetryableStatus, networkFailure } from './delivery-error.js';
import { pushAddressAllowed, pushEndpointProblem, type PushEndpointPolicy } from './push.policy.js';

const SNIPPET_MAX = 200;

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
 * A `lookup` for the connection that refuses private addresses: the check applies to the very
 * addresses the socket connects to, so a host that re-resolves between a check and the connect
 * (DNS rebinding) cannot slip a private address in.
 */
function guardedLookup(policy: PushEndpointPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.find((a) => !pushAddressAllowed(a.address, policy, false));
      if (refused || addresses.length === 0) {
        const e = new DeliveryError(`push endpoint ${hostname} resolves to a private address (${refused?.address ?? 'none'})`, { permanent: true });
        return callback(e, '', 4);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * Encrypts the payload (aes128gcm) and signs the VAPID token with web-push, then POSTs it to the
 * subscription's endpoint, which must still pass `policy` (checked at registration too): only
 * public addresses, redirects never followed (a 3xx is a permanent failure). 404/410 mean the
 * subscription is gone: a permanent DeliveryError with that status.
 */
export async function sendPush(cfg: PushConfig, target: PushTarget, payload: string, policy: PushEndpointPolicy): Promise<void> {
  const problem = pushEndpointProblem(target.endpoint, policy);
  if (problem) throw new DeliveryError(`push endpoint refused: it ${problem}`, { permanent: true });
  const url = new URL(target.endpoint);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // An address in the URL is connected to without a lookup: check it here.
  if (isIP(literal) !== 0 && !pushAddressAllowed(literal, policy, true)) {
    throw new DeliveryError(`push endpoint refused: ${literal} is a private address`, { permanent: true });
  }
  const details = webpush.generateRequestDetails(target, payload, {
    vapidDetails: { subject: cfg.subject, publicKey: cfg.vapid.publicKey, privateKey: cfg.vapid.privateKey },
    contentEncoding: 'aes128gcm',
    TTL: cfg.ttlSeconds,
  });
  const body = details.body ?? Buffer.alloc(0);
  const headers = { ...(details.headers as Record<string, string | number>), 'Content-Length': body.length };
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = url.protocol === 'https:' ? https.request : http.request;
    const req = request(
      url,
      { method: details.method, headers, lookup: guardedLookup(policy), signal: AbortSignal.timeout(cfg.timeoutMs) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < SNIPPET_MAX) text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  }).catch((err: unknown) => {
    throw networkFailure(err, 'push service unreachable');
  });
  if (status >= 200 && status < 300) return;
  const snippet = text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX)}…` : text;
  if (status >= 300 && status < 400) {
    throw new DeliveryError(`push service answered ${status}: redirects are not followed`, { status, permanent: true });
  }
  throw new DeliveryError(`push service answered ${status}${snippet ? `: ${snippet}` : ''}`, {
    status,
    permanent: !isRetryableStatus(status),
  });
}
