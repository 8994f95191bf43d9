import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionUser } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';
import type { Authenticator } from './authenticator.js';
import { requestIsHttps } from './client-address.js';

/** The web console's session cookie: the session's token, HttpOnly, SameSite=Strict, Secure over https. */
export const SESSION_COOKIE = 'sac_session';
/**
 * Beside the session cookie, one the page can read (`1`, no secret): whether there is a cookie
 * session to restore, so a page opened signed out asks nothing that would answer 401.
 */
export const SIGNED_IN_COOKIE = 'sac_signed_in';
/** The header a cookie-authenticated write carries its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';
/** Sent (value `cookie`) with a sign-in by the web console: the answer sets the session cookie too. */
export const COOKIE_SESSION_HEADER = 'x-sac-session';
/** A JWT of ours is a few hundred characters; anything much longer is not one. */
const MAX_COOKIE_CHARS = 4096;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The console token from `Authorization: Bearer <token>`. */
export function bearerToken(req: IncomingMessage): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

function cookieToken(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (header === undefined || header.length > 16 * MAX_COOKIE_CHARS) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value !== '' && value.length <= MAX_COOKIE_CHARS ? value : null;
    }
  }
  return null;
}

/** The session token a request carries: a bearer token first (apps, scripts), else the web console's cookie. */
export function sessionCredential(req: IncomingMessage): { token: string; cookie: boolean } | null {
  const bearer = bearerToken(req);
  if (bearer) return { token: bearer, cookie: false };
  const cookie = cookieToken(req);
  return cookie ? { token: cookie, cookie: true } : null;
}

/** Compares two secrets in constant time: hashing first gives equal lengths, so the time says nothing about either. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The host name of a URL or a Host header, without the port (a proxy may rewrite the port, as nginx's `$host` does). */
function hostName(value: string): string | null {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
}

const csrfRefused = (reason: 'cross_site' | 'token_missing' | 'token_wrong') =>
  new AppError('auth/csrf_refused', 'A write authenticated by the session cookie needs the session\'s CSRF token, from this site', {
    details: { reason },
  });

/**
 * Refuses a cookie-authenticated write that a browser sent for another site, or without the
 * session's CSRF token in `X-CSRF-Token`. Bearer-authenticated calls never get here: a token in a
 * header is not sent by a browser on its own.
 */
function checkCsrf(req: IncomingMessage, expected: string | null): void {
  // Sec-Fetch-Site is the browser's own verdict; only a browser without it is judged by Origin.
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  const crossSite = site !== undefined ? site !== 'same-origin' : origin !== undefined && hostName(origin) !== hostName(req.headers.host ?? '');
  if (crossSite) throw csrfRefused('cross_site');
  const sent = req.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || sent === '') throw csrfRefused('token_missing');
  if (expected === null || !sameSecret(sent, expected)) throw csrfRefused('token_wrong');
}

/**
 * The signed-in user of a request and the token that says so (null: none, or not valid). A write
 * authenticated by the cookie must pass the CSRF check (403 `auth/csrf_refused`); a valid session
 * is checked first, so a stale cookie is answered 401 as a stale token is.
 */
export async function requestSession(req: IncomingMessage, authenticator: Authenticator): Promise<{ user: SessionUser; token: string } | null> {
  const credential = sessionCredential(req);
  if (!credential) return null;
  const user = await authenticator.authenticate(credential.token);
  if (!user) return null;
  if (credential.cookie && !SAFE_METHODS.has(req.method ?? 'GET')) checkCsrf(req, authenticator.csrfToken(credential.token));
  return { user, token: credential.token };
}

/** What an operation may do with the web console's session cookie: sign-in and renewal set it, sign-out clears it. */
export interface SessionCookie {
  /** The call asked for a cookie session (the web console's sign-in) or came with the cookie. */
  readonly wanted: boolean;
  /** Sets the cookie to `token` until `expiresMs` (the session's end). */
  set(token: string, expiresMs: number): void;
  clear(): void;
}

/** The session cookie of one request's answer: Secure when the request came over https (directly or through a trusted proxy). */
export function sessionCookie(req: IncomingMessage, res: ServerResponse): SessionCookie {
  const secure = requestIsHttps(req) ? '; Secure' : '';
  const write = (value: string, expires: string) =>
    res.appendHeader('Set-Cookie', [
      `${SESSION_COOKIE}=${value}; Path=/; Expires=${expires}; HttpOnly; SameSite=Strict${secure}`,
      `${SIGNED_IN_COOKIE}=${value === '' ? '' : '1'}; Path=/; Expires=${expires}; SameSite=Strict${secure}`,
    ]);
  return {
    wanted: req.headers[COOKIE_SESSION_HEADER] === 'cookie' || cookieToken(req) !== null,
    set: (token, expiresMs) => write(token, new Date(expiresMs).toUTCString()),
    clear: () => write('', new Date(0).toUTCString()),
  };
}
