import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainFact } from '../../daemon/src/facts.js';
import { createUser, login } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';

const WRONG = 'Wrong-password-123';
const count = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

/** A tRPC batch of `auth.login` calls in one POST; the per-call HTTP statuses of the answer. */
async function batchLogin(t: TestSac, username: string, n: number): Promise<{ status: number; calls: number[] }> {
  const paths = Array.from({ length: n }, () => 'auth.login').join(',');
  const input = Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { username, password: WRONG }]));
  const res = await fetch(`${t.url}/trpc/${paths}?batch=1`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  const body = (await res.json()) as { error?: { data?: { httpStatus?: number } } }[] | { error: unknown };
  return { status: res.status, calls: Array.isArray(body) ? body.map((r) => r.error?.data?.httpStatus ?? 200) : [] };
}

describe('sign-in throttling under concurrency', () => {
  let sac: TestSac;
  const facts: DomainFact[] = [];
  beforeAll(async () => {
    // The address bound is lifted here so the per-username reservation is what is measured.
    sac = await startTestSac('sqlite', { SAC_LOGIN_ADDRESS_MAX_FAILURES: '100000' });
    sac.sac.facts.subscribe((batch) => void facts.push(...batch));
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('lets exactly 3 of 50 parallel wrong sign-ins reach the password check; the rest get 429 and one lock', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const statuses = (await Promise.all(Array.from({ length: 50 }, () => login(sac, user.username, WRONG)))).map((r) => r.status);
    expect(count(statuses)).toEqual({ 401: 3, 429: 47 });
    expect(facts.filter((f) => f.type === 'auth.login_locked' && f.username === user.username)).toHaveLength(1);
    const locked = await login(sac, user.username, password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(60);
  });

  it('counts a tRPC batch of sign-ins call by call, and refuses batches over 16 calls', async () => {
    const { user } = await createUser(sac, 'monitor');
    const batch = await batchLogin(sac, user.username, 12);
    expect(count(batch.calls)).toEqual({ 401: 3, 429: 9 });
    const { user: other } = await createUser(sac, 'monitor');
    const tooMany = await batchLogin(sac, other.username, 17);
    expect(tooMany.status).toBe(400);
    expect(tooMany.calls).toEqual([]);
    // Nothing of the refused batch was tried.
    expect((await login(sac, other.username, WRONG)).status).toBe(401);
  });

  it('refuses tRPC bodies that are not JSON with 415 before reading them', async () => {
    const form = new FormData();
    form.set('username', 'admin');
    form.set('password', WRONG);
    const multipart = await fetch(`${sac.url}/trpc/auth.login`, { method: 'POST', body: form });
    expect(multipart.status).toBe(415);
    expect(((await multipart.json()) as { error: { code: string } }).error.code).toBe('request/unsupported_media_type');
    const octets = await fetch(`${sac.url}/trpc/auth.login`, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(64) });
    expect(octets.status).toBe(415);
    const big = await fetch(`${sac.url}/trpc/auth.login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
  });
});

describe('sign-in bounds per address and for the hash queue', () => {
  it('lets at most the address limit of parallel sign-ins from one address fail; the rest get 429', async () => {
    const sac = await startTestSac('sqlite', { SAC_LOGIN_ADDRESS_MAX_FAILURES: '5' });
    try {
      const statuses = (await Promise.all(Array.from({ length: 20 }, (_, i) => login(sac, `nobody-${i}`, WRONG)))).map((r) => r.status);
      expect(count(statuses)).toEqual({ 401: 5, 429: 15 });
    } finally {
      await sac.close();
    }
  });

  it('answers 503 with Retry-After once the sign-ins waiting for the password hash reach the bound', async () => {
    const sac = await startTestSac('sqlite', { SAC_LOGIN_QUEUE_LIMIT: '3', SAC_LOGIN_ADDRESS_MAX_FAILURES: '100000' });
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => login(sac, `nobody-${i}`, WRONG)));
      const statuses = answers.map((r) => r.status);
      expect(count(statuses)).toEqual({ 401: 3, 503: 9 });
      const busy = answers.find((r) => r.status === 503)!;
      expect(busy.body.error.code).toBe('auth/busy');
      expect(busy.headers.get('retry-after')).toBe('1');
      // Once the queue drains, sign-ins are served again.
      expect((await login(sac, sac.adminUsername, sac.adminPassword)).status).toBe(200);
    } finally {
      await sac.close();
    }
  });
});
