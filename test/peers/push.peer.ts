import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, readBody } from './util.js';

export interface PushDelivery {
  at: number;
  payload: any;
  /** The VAPID JWT verified with `k`, and its `aud`, `exp` and `sub` claims were acceptable. */
  vapidValid: boolean;
  vapidKey: string;
  ttl: string | undefined;
}

function hkdf(ikm: Buffer, salt: Buffer, info: Buffer, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, length));
}

/** RFC 8291 / RFC 8188 aes128gcm decryption with the user agent's private key and auth secret. */
export function decryptAes128gcm(body: Buffer, ua: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): Buffer {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const uaPublic = ua.ecdh.getPublicKey();
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const ikm = hkdf(ecdhSecret, ua.auth, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]), 32);
  const cek = hkdf(ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const nonce = hkdf(ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('bad padding delimiter (expected 0x02 for the last record)');
  return plain.subarray(0, end);
}

/** Checks `Authorization: vapid t=<jwt>, k=<public key>`: ES256 signature, audience, expiry, subject. */
export function checkVapid(header: string, audience: string): { valid: boolean; key: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) return { valid: false, key: '' };
  const [, jwt, k] = m;
  const [h, p, s] = jwt.split('.');
  const pub = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: pub.subarray(1, 33).toString('base64url'), y: pub.subarray(33, 65).toString('base64url') },
    format: 'jwk',
  });
  const header_ = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string };
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as { aud: string; exp: number; sub: string };
  const sigOk = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  const now = Date.now() / 1000;
  const valid =
    header_.alg === 'ES256' && sigOk && claims.aud === audience && claims.exp > now && claims.exp <= now + 24 * 3600 && /^(mailto:|https:)/.test(claims.sub);
  return { valid, key: k };
}

/**
 * A loopback push service with one browser subscription: it holds the subscription's private
 * key, decrypts each aes128gcm message and checks the VAPID token. `status` forces an answer
 * (e.g. 503 for an outage, 410 for a subscription that is gone); `failNext` answers 503 that many times.
 */
export async function startPushPeer() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const deliveries: PushDelivery[] = [];
  const state: { status: number | null; failNext: number } = { status: null, failNext: 0 };
  const failures: number[] = [];
  let origin = '';
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (state.status || state.failNext > 0) {
      if (state.failNext > 0) state.failNext--;
      failures.push(Date.now());
      return void res.writeHead(state.status ?? 503).end();
    }
    if (req.method !== 'POST' || req.url !== '/push/sub-1' || req.headers['content-encoding'] !== 'aes128gcm') return void res.writeHead(400).end();
    const vapid = checkVapid(String(req.headers.authorization ?? ''), origin);
    const payload = JSON.parse(decryptAes128gcm(body, { ecdh, auth }).toString('utf8'));
    deliveries.push({ at: Date.now(), payload, vapidValid: vapid.valid, vapidKey: vapid.key, ttl: req.headers.ttl as string | undefined });
    res.writeHead(201).end();
  });
  origin = await listen(server);
  return {
    subscription: {
      endpoint: `${origin}/push/sub-1`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
    deliveries,
    failures,
    state,
    close: () => closeServer(server),
  };
}
export type PushPeer = Awaited<ReturnType<typeof startPushPeer>>;
