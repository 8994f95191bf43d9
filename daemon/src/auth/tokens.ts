import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Clock } from '../clock.js';
import { randomBase62 } from '../random.js';
import type { SecretBox } from '../settings/index.js';
import type { SettingsRepo } from '../store/index.js';

const ISSUER = 'sac';
const AUDIENCE = 'sac-console';
const ALGORITHM = 'HS256';
const JWT_SECRET_SETTING = 'internal.jwt_secret';

/** A mobile device an access token is bound to, and the enrollment (generation) it was issued for. */
export interface DeviceClaim {
  id: string;
  generation: number;
}

/**
 * What a verified token says: the user and the password generation it was issued for, and either
 * the console session (`sessionId`) or the mobile device (`device`) it belongs to.
 */
export interface TokenClaims {
  userId: string;
  tokenVersion: number;
  expiresMs: number;
  sessionId: string | null;
  device: DeviceClaim | null;
}

/**
 * Whom a token is for: a console session that ends at `notAfterMs` (`wholeSession`: valid until
 * then, not just for the TTL — the web console's session cookie), or an enrolled device.
 */
export type TokenSubject = { sessionId: string; notAfterMs: number; wholeSession?: boolean } | { device: DeviceClaim; ttlMs: number };

/** Session tokens: JWT, HS256 only, with `exp`, `iss` and `aud` checked against the injected clock. */
export class SessionTokens {
  constructor(
    private readonly secret: string,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /**
   * A console token of a session, valid for the TTL but never past the session's absolute end; or
   * a mobile device's access token with its own, usually shorter, lifetime.
   */
  issue(user: { id: string; token_version: number }, subject: TokenSubject): { token: string; expiresMs: number } {
    const nowS = Math.floor(this.clock.now() / 1000);
    const exp =
      'sessionId' in subject
        ? Math.min(subject.wholeSession ? Number.MAX_SAFE_INTEGER : nowS + Math.floor(this.ttlMs / 1000), Math.floor(subject.notAfterMs / 1000))
        : nowS + Math.floor(subject.ttlMs / 1000);
    const claims = 'sessionId' in subject ? { sid: subject.sessionId } : { dev: subject.device.id, dg: subject.device.generation };
    const token = jwt.sign({ sub: user.id, tv: user.token_version, ...claims, iat: nowS, exp }, this.secret, {
      algorithm: ALGORITHM,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return { token, expiresMs: exp * 1000 };
  }

  /**
   * The CSRF token of a console session: derived from the session id with the signing secret, so
   * every daemon sharing the secret checks it without a store read, and it dies with the session.
   */
  csrfToken(sessionId: string): string {
    return createHmac('sha256', this.secret).update(`csrf:${sessionId}`).digest('base64url');
  }

  /** The claims of a valid, unexpired token of ours (bound to a session or a device); null for anything else. */
  verify(token: string): TokenClaims | null {
    try {
      const payload = jwt.verify(token, this.secret, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
        clockTimestamp: Math.floor(this.clock.now() / 1000),
      });
      if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.tv !== 'number' || typeof payload.exp !== 'number') {
        return null;
      }
      const base = { userId: payload.sub, tokenVersion: payload.tv, expiresMs: payload.exp * 1000 };
      if (payload.dev !== undefined || payload.dg !== undefined) {
        if (typeof payload.dev !== 'string' || typeof payload.dg !== 'number' || payload.sid !== undefined) return null;
        return { ...base, sessionId: null, device: { id: payload.dev, generation: payload.dg } };
      }
      if (typeof payload.sid !== 'string') return null;
      return { ...base, sessionId: payload.sid, device: null };
    } catch {
      return null;
    }
  }
}

/**
 * The signing secret: `SAC_JWT_SECRET` when given, otherwise one generated on first start and kept
 * encrypted in the store, so every daemon on the same store (and the same master key) shares it.
 */
export async function loadJwtSecret(given: string | undefined, settings: SettingsRepo, box: SecretBox, clock: Clock): Promise<string> {
  if (given) return given;
  const stored = await settings.insertIfAbsent({
    key: JWT_SECRET_SETTING,
    value: box.encrypt(randomBase62(64), JWT_SECRET_SETTING),
    updated_ms: clock.now(),
    updated_by: null,
  });
  return box.decrypt(stored.value, JWT_SECRET_SETTING);
}
