import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Clock } from '../../daemon/src/clock.js';
import { loadConfig } from '../../daemon/src/config.js';
import { startSac, type RunningSac } from '../../daemon/src/sac.js';
import { buildEvent } from './events.js';
import { storeEnv, tempDir, type StoreKind } from './stores.js';

export interface TestSac {
  url: string;
  /** The bootstrap agent API key, read from the file the daemon wrote. */
  apiKey: string;
  dataDir: string;
  /** The first-start admin's username and password (SAC_ADMIN_PASSWORD, random per daemon unless given). */
  adminUsername: string;
  adminPassword: string;
  /** Every log line the daemon wrote, as JSON text. */
  logs: string[];
  sac: RunningSac;
  close(): Promise<void>;
}

const PASSWORD_SALT = randomBytes(16).toString('hex');

/** Random per test process, the same for one data dir, so a restarted daemon keeps its admin's password. */
function testAdminPassword(dataDir: string): string {
  return `Tst-pw-${createHash('sha256').update(PASSWORD_SALT).update(dataDir).digest('base64url').slice(0, 20)}`;
}

/**
 * Starts the real daemon in this process on a free loopback port with a fresh store of `kind`.
 * `env` adds or overrides SAC_* variables, parsed by the real config loader (`SAC_ADMIN_PASSWORD: ''`
 * makes the daemon generate the admin password). `opts.clock` replaces the system clock.
 */
export async function startTestSac(kind: StoreKind, env: Record<string, string> = {}, opts: { clock?: Clock } = {}): Promise<TestSac> {
  const dataDir = env.SAC_DATA_DIR ?? tempDir();
  const adminPassword = testAdminPassword(dataDir);
  const result = loadConfig({
    ...storeEnv(kind, dataDir),
    SAC_PORT: '0',
    SAC_LOG_LEVEL: 'debug',
    SAC_ADMIN_PASSWORD: adminPassword,
    ...env,
  });
  if (!result.ok) throw new Error(`test config invalid: ${result.problems.join('; ')}`);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(line);
      done();
    },
  });
  const sac = await startSac(result.config, { logger: pino({ level: 'debug' }, sink), clock: opts.clock });
  const apiKey = env.SAC_BOOTSTRAP_API_KEY ?? readFileSync(path.join(dataDir, 'bootstrap-api-key'), 'utf8').trim();
  return {
    url: sac.url,
    apiKey,
    dataDir,
    adminUsername: result.config.auth.adminUsername,
    adminPassword: result.config.auth.adminPassword ?? readFileSync(sac.adminPasswordFile, 'utf8').trim(),
    logs,
    sac,
    close: () => sac.close(),
  };
}

/** POSTs a body (object → JSON, string/Buffer as is) to the ingest endpoint. */
export async function postEvent(
  url: string,
  apiKey: string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${url}/api/v1/events`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      ...headers,
    },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** Posts a factory-built event (see `buildEvent`), fails the test unless it is stored, and returns its id. */
export async function ingestEvent(t: TestSac, overrides: Parameters<typeof buildEvent>[0] = {}): Promise<string> {
  const event = buildEvent(overrides);
  const res = await postEvent(t.url, t.apiKey, event);
  if (res.status !== 201) throw new Error(`ingest of ${event.type} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return event.event_id;
}

/** ISO text of an epoch-ms instant. */
export const isoAt = (ms: number): string => new Date(ms).toISOString();
