import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, type ApiResponse } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';

const HOUR = 3_600_000;
/** Each sign-in is a 128 MiB scrypt check: ~0.3 s alone, seconds on a loaded machine; a test here makes up to five. */
const SIGN_INS_MS = 90_000;

interface CookieSession {
  /** `sac_session=…`, as a browser sends it back. */
  cookie: string;
  /** The whole Set-Cookie line of the sign-in. */
  setCookie: string;
  csrf: string;
  token: string;
  expiresAt: string;
}

/** The web console's sign-in: asks for the session cookie. */
async function cookieSignIn(t: TestSac, username: string, password: string, headers: Record<string, string> = {}): Promise<CookieSession> {
  const res = await api(t, 'POST', '/api/v1/auth/login', { body: { username, password }, headers: { 'X-SAC-Session': 'cookie', ...headers } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('sac_session='));
  expect(setCookie).toBeDefined();
  return { cookie: setCookie!.split(';')[0], setCookie: setCookie!, csrf: res.body.csrf_token, token: res.body.token, expiresAt: res.body.expires_at };
}

/** A tRPC mutation as a browser on the page sends it: the cookie, and the headers given. */
async function trpcWithCookie(t: TestSac, path: string, cookie: string, headers: Record<string, string> = {}, input: unknown = {}): Promise<ApiResponse> {
  const res = await fetch(`${t.url}/trpc/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie, ...headers },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe.each(STORE_KINDS)('the web console session cookie on %s', (kind) => {
  let sac: TestSac;
  let origin: string;
  beforeAll(async () => {
    // Tokens last 30 minutes, the session 2 hours: the cookie must last as long as the session.
    sac = await startTestSac(kind, { SAC_SESSION_TTL_MINUTES: '30', SAC_SESSION_ABSOLUTE_HOURS: '2', SAC_TRUSTED_PROXIES: '127.0.0.1' });
    origin = new URL(sac.url).origin;
  });
  afterAll(async () => {
    await sac?.close();
  }, SIGN_INS_MS);

  it('sets an HttpOnly, SameSite=Strict cookie until the session ends, Secure only over https; bearer clients get none', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const before = Date.now();
    const plain = await cookieSignIn(sac, user.username, password);
    expect(plain.setCookie).toMatch(/; Path=\/;/);
    expect(plain.setCookie).toMatch(/; HttpOnly/);
    expect(plain.setCookie).toMatch(/; SameSite=Strict/);
    expect(plain.setCookie).not.toMatch(/Secure/);
    const cookieEnd = Date.parse(/Expires=([^;]+)/.exec(plain.setCookie)![1]);
    expect(cookieEnd).toBeGreaterThan(before + 2 * HOUR - 60_000);
    expect(cookieEnd).toBeLessThanOrEqual(Date.now() + 2 * HOUR);
    // The bearer token of the same answer keeps its own, shorter lifetime.
    expect(Date.parse(plain.expiresAt)).toBeLessThan(before + HOUR);
    expect(plain.csrf).toMatch(/^[\w-]{43}$/);
    // Beside it, one the page can read, holding no secret: there is a cookie session to restore.
    const hint = (await api(sac, 'POST', '/api/v1/auth/login', { body: { username: user.username, password }, headers: { 'X-SAC-Session': 'cookie' } })).headers
      .getSetCookie()
      .find((c) => c.startsWith('sac_signed_in='));
    expect(hint).toMatch(/^sac_signed_in=1; Path=\/; Expires=[^;]+; SameSite=Strict$/);

    // Behind the trusted proxy (127.0.0.1 here) saying https, the cookie is Secure.
    const https = await cookieSignIn(sac, user.username, password, { 'X-Forwarded-Proto': 'https' });
    expect(https.setCookie).toMatch(/; Secure$/);

    const bearer = await api(sac, 'POST', '/api/v1/auth/login', { body: { username: user.username, password } });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.getSetCookie()).toEqual([]);
    expect(bearer.body.csrf_token).toMatch(/^[\w-]{43}$/);
  }, SIGN_INS_MS);

  it('opens a new tab signed in: the session, reads, tRPC queries and the live stream accept the cookie', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const s = await cookieSignIn(sac, user.username, password);
    const session = await api(sac, 'GET', '/api/v1/auth/session', { headers: { Cookie: s.cookie } });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ user: { username: user.username, role: 'monitor' }, csrf_token: s.csrf });
    expect(Date.parse(session.body.expires_at)).toBeGreaterThan(Date.parse(s.expiresAt));
    expect((await api(sac, 'GET', '/api/v1/problems', { headers: { Cookie: s.cookie } })).status).toBe(200);
    const query = await fetch(`${sac.url}/trpc/auth.me`, { headers: { Cookie: s.cookie } });
    expect(query.status).toBe(200);
    const stream = await openStream(sac, { cookie: s.cookie });
    expect(stream.status).toBe(200);
    stream.close();
    expect((await api(sac, 'GET', '/api/v1/auth/session', { headers: { Cookie: 'sac_session=forged' } })).status).toBe(401);
  }, SIGN_INS_MS);

  it('refuses a cookie-authenticated write without the CSRF token, with a wrong one, or from another site; accepts it with the token', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const s = await cookieSignIn(sac, user.username, password);
    const write = (headers: Record<string, string>) => api(sac, 'POST', '/api/v1/stream/ticket', { headers: { Cookie: s.cookie, ...headers } });
    const refusals: [Record<string, string>, string][] = [
      [{}, 'token_missing'],
      [{ Origin: origin }, 'token_missing'],
      [{ 'X-CSRF-Token': `${s.csrf.slice(1)}x` }, 'token_wrong'],
      [{ 'X-CSRF-Token': s.csrf, Origin: 'https://evil.example' }, 'cross_site'],
      [{ 'X-CSRF-Token': s.csrf, 'Sec-Fetch-Site': 'cross-site' }, 'cross_site'],
      [{ 'X-CSRF-Token': s.csrf, 'Sec-Fetch-Site': 'same-site' }, 'cross_site'],
    ];
    for (const [headers, reason] of refusals) {
      const res = await write(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'auth/csrf_refused', details: { reason } });
    }
    const trpcRefused = await trpcWithCookie(sac, 'auth.renew', s.cookie);
    expect(trpcRefused.status).toBe(403);
    expect(trpcRefused.body.error.data).toMatchObject({ appCode: 'auth/csrf_refused', details: { reason: 'token_missing' } });

    const ok = await write({ 'X-CSRF-Token': s.csrf, Origin: origin, 'Sec-Fetch-Site': 'same-origin' });
    expect(ok.status).toBe(201);
    const renewed = await trpcWithCookie(sac, 'auth.renew', s.cookie, { 'X-CSRF-Token': s.csrf });
    expect(renewed.status).toBe(200);
    // A renewal that came with the cookie sets it again, for the same session.
    expect(renewed.headers.getSetCookie()[0]).toMatch(/^sac_session=[^;]+; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    expect(renewed.body.result.data.csrf_token).toBe(s.csrf);
  }, SIGN_INS_MS);

  it('leaves bearer calls as they were: no CSRF token needed, and a bearer token wins over a cookie', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const other = await createUser(sac, 'monitor');
    const s = await cookieSignIn(sac, other.user.username, other.password);
    const bearer = (await api(sac, 'POST', '/api/v1/auth/login', { body: { username: user.username, password } })).body.token as string;
    expect((await api(sac, 'POST', '/api/v1/stream/ticket', { token: bearer, headers: { Origin: 'https://elsewhere.example' } })).status).toBe(201);
    const me = await api(sac, 'GET', '/api/v1/auth/me', { token: bearer, headers: { Cookie: s.cookie } });
    expect(me.body.user.username).toBe(user.username);
    expect((await api(sac, 'POST', '/api/v1/stream/ticket', { token: bearer, headers: { Cookie: s.cookie } })).status).toBe(201);
  }, SIGN_INS_MS);

  it('signs out: the cookie is cleared and its session no longer works; an admin password reset ends it too', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const s = await cookieSignIn(sac, user.username, password);
    const out = await api(sac, 'POST', '/api/v1/auth/logout', { headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^sac_session=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/),
      expect.stringMatching(/^sac_signed_in=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Strict$/),
    ]);
    expect((await api(sac, 'GET', '/api/v1/auth/session', { headers: { Cookie: s.cookie } })).status).toBe(401);
    expect((await openStream(sac, { cookie: s.cookie })).status).toBe(401);

    const again = await cookieSignIn(sac, user.username, password);
    expect((await api(sac, 'GET', '/api/v1/auth/session', { headers: { Cookie: again.cookie } })).status).toBe(200);
    const reset = await api(sac, 'PATCH', `/api/v1/users/${user.id}`, { token: await adminToken(sac), body: { password: 'Another-long-pass-9' } });
    expect(reset.status).toBe(200);
    expect((await api(sac, 'GET', '/api/v1/auth/session', { headers: { Cookie: again.cookie } })).status).toBe(401);
  }, SIGN_INS_MS);
});
