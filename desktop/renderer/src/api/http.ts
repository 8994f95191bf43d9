import { tracked } from './progress';

/** The console's API lives at the same origin and base path as the page (the Electron shell proxies it). */
export function apiUrl(path: string): string {
  return new URL(path.replace(/^\//, ''), document.baseURI).toString();
}

/** An API failure with what the UI needs to explain it. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly details: unknown = null,
    /** Seconds from a Retry-After header (throttled logins). */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let sessionToken: string | null = null;
let csrfToken: string | null = null;

/**
 * What every API call sends to say who it is, set by the auth store: the bearer token (Electron),
 * or, where the session is the daemon's cookie (web), the session's CSRF token with every write.
 */
export const session = {
  get token(): string | null {
    return sessionToken;
  },
  set(token: string | null): void {
    sessionToken = token;
  },
  setCsrf(token: string | null): void {
    csrfToken = token;
  },
};

/** The headers of one call's session (the cookie itself the browser adds). */
export function sessionHeaders(method: string): Record<string, string> {
  if (sessionToken) return { Authorization: `Bearer ${sessionToken}` };
  return csrfToken && method !== 'GET' ? { 'X-CSRF-Token': csrfToken } : {};
}

/** Listeners told when the daemon says the session is no longer valid (401). */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}
export function reportUnauthorized(): void {
  for (const l of unauthorizedListeners) l();
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  /** Send the session token (default true). */
  auth?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls a REST route and returns its JSON body; non-2xx answers become ApiError with the body's error code. */
export async function requestJson<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const url = new URL(apiUrl(path));
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers, ...(opts.auth !== false ? sessionHeaders(method) : {}) };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await tracked(() => fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: opts.signal }));
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('The SAC server cannot be reached', 0, 'network/unreachable');
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!res.ok) {
    const e = (body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
    const retry = Number(res.headers.get('Retry-After'));
    if (res.status === 401 && opts.auth !== false) reportUnauthorized();
    throw new ApiError(e?.message ?? `HTTP ${res.status}`, res.status, e?.code ?? null, e?.details ?? null, Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  return body as T;
}
