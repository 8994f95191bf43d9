import { randomBytes } from 'node:crypto';
import type { LoginResponse, Role, UserView } from '../../shared/src/index.js';
import type { TestSac } from './daemon.js';

export interface ApiResponse {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * One JSON request to the daemon: `token` becomes `Authorization: Bearer`, `body` is sent as JSON.
 * The answer's body is parsed when it is JSON, else kept as text.
 */
export async function api(
  t: Pick<TestSac, 'url'>,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: {
      ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, headers: res.headers };
}

/** `POST /api/v1/auth/login`; the raw answer, whatever its status. */
export function login(t: TestSac, username: string, password: string): Promise<ApiResponse> {
  return api(t, 'POST', '/api/v1/auth/login', { body: { username, password } });
}

async function tokenFor(t: TestSac, username: string, password: string): Promise<string> {
  const res = await login(t, username, password);
  if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as LoginResponse).token;
}

const adminTokens = new WeakMap<TestSac, Promise<string>>();

/**
 * A session token of the first-start admin. Cached per daemon (each sign-in costs a scrypt hash);
 * `{ fresh: true }` signs in again, e.g. after the admin's password or status changed.
 */
export function adminToken(t: TestSac, opts: { fresh?: boolean } = {}): Promise<string> {
  let token = adminTokens.get(t);
  if (!token || opts.fresh) {
    token = tokenFor(t, t.adminUsername, t.adminPassword);
    token.catch(() => adminTokens.delete(t));
    adminTokens.set(t, token);
  }
  return token;
}

/** Creates a user through `POST /api/v1/users` (as the admin) with a random name and password. */
export async function createUser(
  t: TestSac,
  role: Role,
  overrides: { username?: string; password?: string; display_name?: string } = {},
): Promise<{ user: UserView; password: string }> {
  const password = overrides.password ?? `Pw-${randomBytes(12).toString('base64url')}`;
  const username = overrides.username ?? `${role}-${randomBytes(4).toString('hex')}`;
  const res = await api(t, 'POST', '/api/v1/users', {
    token: await adminToken(t),
    body: { username, password, role, ...(overrides.display_name ? { display_name: overrides.display_name } : {}) },
  });
  if (res.status !== 201) throw new Error(`creating ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { user: res.body as UserView, password };
}

/** Creates a fresh user with `role` and returns a session token of it. */
export async function userToken(t: TestSac, role: Role): Promise<string> {
  const { user, password } = await createUser(t, role);
  return tokenFor(t, user.username, password);
}

/** The id of the host an ingested event was filed under. */
export async function hostIdOf(t: TestSac, eventId: string): Promise<string> {
  return (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: await adminToken(t) })).body.host_id;
}
