import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { EventInput } from '../../../shared/src/index.js';
import type { Clock } from '../../../daemon/src/clock.js';
import { loadConfig } from '../../../daemon/src/config.js';
import { startSac, type RunningSac } from '../../../daemon/src/sac.js';
import { buildEvent } from '../../helpers/events.js';

export const ADMIN_PASSWORD = 'Night-shift-watch-2026';
export const AGENT_KEY = 'e2e_agent_key_0123456789abcdefghij';

export interface E2eSac {
  url: string;
  sac: RunningSac;
  close(): Promise<void>;
  /** POSTs a factory event (`buildEvent(overrides)`) as an agent; throws unless the daemon answers 201. */
  ingest(overrides?: Parameters<typeof buildEvent>[0]): Promise<EventInput>;
  /** POSTs an event exactly as given. */
  post(event: EventInput): Promise<EventInput>;
  /** A JSON call to the daemon's API with an optional bearer token. */
  api(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<{ status: number; body: any }>;
  /** Signs a user in through the API and returns the token. */
  token(username: string, password: string): Promise<string>;
}

/**
 * A fresh daemon for one spec file: SQLite in a temp dir, loopback, free port, known admin
 * password and agent key, the console web build served at / (npm run build:web makes it).
 * `clock`: the daemon's clock (a `TestClock` lets a spec move the daemon's time forward).
 */
export async function startE2eSac(env: Record<string, string> = {}, clock?: Clock): Promise<E2eSac> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sac-e2e-'));
  const result = loadConfig({
    SAC_DATA_DIR: dataDir,
    SAC_HOST: '127.0.0.1',
    SAC_PORT: '0',
    SAC_ADMIN_PASSWORD: ADMIN_PASSWORD,
    SAC_BOOTSTRAP_API_KEY: AGENT_KEY,
    SAC_LOG_LEVEL: 'error',
    ...env,
  });
  if (!result.ok) throw new Error(`e2e config invalid: ${result.problems.join('; ')}`);
  const sac = await startSac(result.config, { logger: pino({ level: 'error' }, pino.destination(2)), clock });
  const url = sac.url;
  const api: E2eSac['api'] = async (method, p, opts = {}) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...(opts.token ? { Authorization: `Bearer ${opts.token}` } : {}) },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep text
    }
    return { status: res.status, body };
  };
  const post = async (event: EventInput): Promise<EventInput> => {
    const res = await fetch(`${url}/api/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${AGENT_KEY}`, 'Idempotency-Key': event.event_id },
      body: JSON.stringify(event),
    });
    if (res.status !== 201) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
    return event;
  };
  return {
    url,
    sac,
    close: () => sac.close(),
    api,
    ingest: (overrides = {}) => post(buildEvent(overrides)),
    post,
    async token(username, password) {
      const res = await api('POST', '/api/v1/auth/login', { body: { username, password } });
      if (res.status !== 200) throw new Error(`login ${username} answered ${res.status}`);
      return res.body.token as string;
    },
  };
}

/** A local time `minutesAgo` before now with a +03:00 offset and 3 fraction digits, as the Windows agent writes it. */
export function agentTime(minutesAgo: number): string {
  const d = new Date(Date.now() - minutesAgo * 60_000 + 3 * 3600_000);
  return `${d.toISOString().slice(0, 23)}+03:00`;
}
