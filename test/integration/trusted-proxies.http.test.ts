import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { api } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { storeEnv, tempDir } from '../helpers/stores.js';

const WRONG = 'Wrong-password-123';
/** Failed sign-ins from one address before it gets 429. */
const PER_ADDRESS = 3;

let attempts = 0;
let adminToken = '';

/** A wrong sign-in sent as if through a proxy that set `X-Forwarded-For` (or without it). */
async function wrongLogin(sac: TestSac, forwardedFor?: string): Promise<number> {
  const res = await fetch(`${sac.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor }) },
    // A new name each time: only the per-address limit is under test, not the per-user lock.
    body: JSON.stringify({ username: `nobody-${++attempts}`, password: WRONG }),
  });
  await res.body?.cancel();
  return res.status;
}

/** The addresses the audit log recorded for failed sign-ins, read by the admin (signed in before any failure). */
async function failedLoginAddresses(sac: TestSac): Promise<string[]> {
  const res = await api(sac, 'GET', '/api/v1/audit?action=auth.login_failed&limit=100', { token: adminToken });
  expect(res.status).toBe(200);
  return (res.body.entries as { ip: string | null }[]).map((e) => e.ip ?? '');
}

describe('the client address behind a reverse proxy (SAC_TRUSTED_PROXIES)', () => {
  let sac: TestSac | null = null;
  afterEach(async () => {
    await sac?.close();
    sac = null;
  });
  const start = async (trusted?: string) => {
    sac = await startTestSac('sqlite', {
      SAC_LOGIN_ADDRESS_MAX_FAILURES: String(PER_ADDRESS),
      ...(trusted === undefined ? {} : { SAC_TRUSTED_PROXIES: trusted }),
    });
    const login = await api(sac, 'POST', '/api/v1/auth/login', { body: { username: sac.adminUsername, password: sac.adminPassword } });
    expect(login.status).toBe(200);
    adminToken = login.body.token as string;
    return sac;
  };

  it('ignores X-Forwarded-For by default: every sign-in counts against the TCP peer', async () => {
    const s = await start();
    const statuses = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) statuses.push(await wrongLogin(s, `203.0.113.${i + 1}`));
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(new Set(await failedLoginAddresses(s))).toEqual(new Set(['127.0.0.1']));
  });

  it('counts sign-ins, audits and logs per forwarded client when the peer is a trusted proxy', async () => {
    const s = await start('127.0.0.1, 10.0.0.0/8');
    for (let i = 0; i < PER_ADDRESS; i++) expect(await wrongLogin(s, '203.0.113.5')).toBe(401);
    expect(await wrongLogin(s, '203.0.113.5')).toBe(429);
    // Another client behind the same proxy is not locked out by the first one.
    expect(await wrongLogin(s, '203.0.113.6')).toBe(401);
    // A chain through a second trusted proxy (10.1.2.3) still names the client.
    expect(await wrongLogin(s, '203.0.113.7, 10.1.2.3')).toBe(401);
    // Whatever the client itself wrote is left of its own address, and is not believed: still throttled.
    expect(await wrongLogin(s, '198.51.100.99, 203.0.113.5')).toBe(429);
    const audited = await failedLoginAddresses(s);
    // The refused attempts are audited too: all five under the real client's address.
    expect(audited.filter((ip) => ip === '203.0.113.5')).toHaveLength(PER_ADDRESS + 2);
    expect(audited).toContain('203.0.113.6');
    expect(audited).toContain('203.0.113.7');
    expect(audited).not.toContain('198.51.100.99');
    expect(audited).not.toContain('127.0.0.1');
    // Without the header the proxy itself is the client.
    expect(await wrongLogin(s)).toBe(401);
    expect(await failedLoginAddresses(s)).toContain('127.0.0.1');
    // The ingest path (outside Express) logs the same address.
    expect((await postEvent(s.url, 'sac_wrong-key', {}, { 'X-Forwarded-For': '192.0.2.44' })).status).toBe(401);
    const unauthorized = s.logs.map((l) => JSON.parse(l) as { msg: string; ip?: string }).filter((l) => l.msg === 'ingest unauthorized');
    expect(unauthorized.at(-1)?.ip).toBe('192.0.2.44');
  });

  it('ignores a spoofed X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const s = await start('10.0.0.0/8, 2001:db8::/32');
    const statuses = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) statuses.push(await wrongLogin(s, `203.0.113.${i + 20}`));
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(new Set(await failedLoginAddresses(s))).toEqual(new Set(['127.0.0.1']));
  });

  it('refuses to start with an entry that is not an IP address or CIDR block', () => {
    for (const bad of ['proxy.example.org', '10.0.0.0/33', '127.0.0.1, 300.1.1.1', '::1/129', '10.0.0.1/8/1']) {
      const result = loadConfig({ ...storeEnv('sqlite', tempDir()), SAC_TRUSTED_PROXIES: bad });
      expect(result.ok, bad).toBe(false);
      if (!result.ok) expect(result.problems.join('\n')).toMatch(/^SAC_TRUSTED_PROXIES: .+ expected IP addresses and CIDR blocks/m);
    }
    expect(loadConfig({ ...storeEnv('sqlite', tempDir()), SAC_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8, ::1, fd00::/8' }).ok).toBe(true);
  });
});
