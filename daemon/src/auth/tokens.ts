import jwt from 'jsonwebtoken';
import type { Clock } from '../clock.js';
import { randomBase62 } from '../random.js';
import type { SecretBox } from '../settings/secret-box.js';
import type { SettingsRepo } from '../store/index.js';

const ISSUER = 'sac';
const AUDIENCE = 'sac-console';
const ALGORITHM = 'HS256';
const JWT_SECRET_SETTING = 'internal.jwt_secret';

/** What a verified console token says: the user, the password generation and the session it was issued for. */
export interface TokenClaims {
  userId: string;
  tokenVersion: number;
  /** The session (sign-in) the token belongs to; signing out revokes it. */
  sessionId: string;
  expiresMs: number;
}

/** Console session tokens: JWT, HS256 only, with `exp`, `iss` and `aud` checked against the injected clock. */
export class SessionTokens {
  constructor(
    private readonly secret: string,
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** A token of `sessionId`, valid for the TTL but never past `notAfterMs` (the session's absolute end). */
  issue(user: { id: string; token_version: number }, sessionId: string, notAfterMs: number): { token: string; expiresMs: number } {
    const nowS = Math.floor(this.clock.now() / 1000);
    const exp = Math.min(nowS + Math.floor(this.ttlMs / 1000), Math.floor(notAfterMs / 1000));
    const token = jwt.sign({ sub: user.id, tv: user.token_version, sid: sessionId, iat: nowS, exp }, this.secret, {
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
      if (
        typeof payload !== 'object' ||
        typeof payload.sub !== 'string' ||
        typeof payload.tv !== 'number' ||
        typeof payload.sid !== 'string' ||
        typeof payload.exp !== 'number'
      ) {
        return null;
      }
      return { userId: payload.sub, tokenVersion: payload.tv, sessionId: payload.sid, expiresMs: payload.exp * 1000 };
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
