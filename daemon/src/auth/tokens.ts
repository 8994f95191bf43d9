import jwt from 'jsonwebtoken';
import type { Clock } from '../clock.js';
import { randomBase62 } from '../random.js';
import type { SecretBox } from '../settings/secret-box.js';
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

/** What a verified console token says: the user and the password generation it was issued for. */
export interface TokenClaims {
  userId: string;
  tokenVersion: number;
  expiresMs: number;
  /** Set on a mobile device's access token: it is good only while that device is enrolled. */
  device: DeviceClaim | null;
}

/** Console session tokens: JWT, HS256 only, with `exp`, `iss` and `aud` checked against the injected clock. */
export class SessionTokens {
  constructor(
    private readonly secret: string,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** A console token, or with `device` a mobile device's access token (its own, usually shorter, `ttlMs`). */
  issue(user: { id: string; token_version: number }, device?: DeviceClaim, ttlMs = this.ttlMs): { token: string; expiresMs: number } {
    const nowS = Math.floor(this.clock.now() / 1000);
    const exp = nowS + Math.floor(ttlMs / 1000);
    const deviceClaims = device ? { dev: device.id, dg: device.generation } : {};
    const token = jwt.sign({ sub: user.id, tv: user.token_version, ...deviceClaims, iat: nowS, exp }, this.secret, {
      algorithm: ALGORITHM,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    return { token, expiresMs: exp * 1000 };
  }

  /** The claims of a valid, unexpired token of ours; null for anything else. */
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
      let device: DeviceClaim | null = null;
      if (payload.dev !== undefined || payload.dg !== undefined) {
        if (typeof payload.dev !== 'string' || typeof payload.dg !== 'number') return null;
        device = { id: payload.dev, generation: payload.dg };
      }
      return { userId: payload.sub, tokenVersion: payload.tv, expiresMs: payload.exp * 1000, device };
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
